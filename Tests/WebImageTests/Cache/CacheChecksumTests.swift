import CWebImageSupport
import Testing

/// The entry checksum (the crash-safety test relies on it): the three-stream hardware CRC-32C must agree
/// with the bit-at-a-time definition for every length and alignment, across the block
/// sizes where the streams are combined.
@Suite("CRC-32C")
struct CacheChecksumTests {
    static func reference(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var value = ~crc
        for byte in bytes {
            value ^= UInt32(byte)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
        }
        return ~value
    }

    @Test func C8_checksumMatchesDefinition() {
        #expect(webimage_crc32c(0, "123456789", 9) == 0xE306_9283)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(3 * 8192 * 2 + 777)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes.withUnsafeBytes { all in
            var lengths = Array(0..<80) + [767, 768, 769, 3 * 8192 - 1, 3 * 8192, 3 * 8192 + 1, all.count - 16]
            for _ in 0..<12 { lengths.append(Int.random(in: 0...(all.count - 16), using: &generator)) }
            for length in lengths {
                let offset = Int.random(in: 0..<16, using: &generator)
                let slice = UnsafeRawBufferPointer(rebasing: all[offset..<offset + length])
                let seed = UInt32.random(in: 0...UInt32.max, using: &generator)
                #expect(webimage_crc32c(seed, slice.baseAddress, slice.count) == Self.reference(seed, slice), "length \(length) offset \(offset)")
            }
            // Chaining two calls equals one call over the whole.
            let whole = webimage_crc32c(0, all.baseAddress, all.count)
            let split = webimage_crc32c(webimage_crc32c(0, all.baseAddress, 30_001), all.baseAddress! + 30_001, all.count - 30_001)
            #expect(whole == split)
        }
    }
}
