import Foundation

/// The structure of encoded bytes, read without a decoder: a JPEG's header markers and a
/// PNG's chunks, for checking what an encoder setting wrote.
package enum EncodedStructure {
    /// The markers of a JPEG's header segments, up to and including the first scan (SOS,
    /// 0xDA): 0xC0 for a baseline frame, 0xC2 for a progressive one.
    package static func jpegMarkers(_ data: Data) -> [UInt8] {
        let bytes = [UInt8](data)
        var markers: [UInt8] = []
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            markers.append(marker)
            if marker == 0xDA { break }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            index += 2 + length
        }
        return markers
    }

    /// A PNG's chunks in order: type and data.
    package static func pngChunks(_ data: Data) -> [(type: String, data: [UInt8])] {
        let bytes = [UInt8](data)
        var chunks: [(String, [UInt8])] = []
        var index = 8
        while index + 12 <= bytes.count {
            let length = bytes[index..<index + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[index + 4..<index + 8], as: UTF8.self)
            guard index + 12 + length <= bytes.count else { break }
            chunks.append((type, Array(bytes[index + 8..<index + 8 + length])))
            index += 12 + length
        }
        return chunks
    }

    /// IHDR's bit depth, colour type (3: palette) and interlace method (1: Adam7), or `nil`
    /// when the bytes have no IHDR.
    package static func pngHeader(_ data: Data) -> (bitDepth: UInt8, colorType: UInt8, interlace: UInt8)? {
        guard let header = pngChunks(data).first(where: { $0.type == "IHDR" })?.data, header.count == 13 else { return nil }
        return (header[8], header[9], header[12])
    }

    /// The number of entries of a PNG's palette (PLTE), or `nil` when it has none.
    package static func pngPaletteCount(_ data: Data) -> Int? {
        pngChunks(data).first { $0.type == "PLTE" }.map { $0.data.count / 3 }
    }
}
