import Foundation
import WebImage

/// The encoded test images, made in-process from generated pixels.
///
/// Each benchmark runs in a process of its own, so the images are written once to a
/// cache folder under the system's temporary directory and read back by later
/// processes; bump `version` when the generator changes.
public enum Fixtures {
    private static let version = 3

    /// 6000 × 4000 (24 MP) RGB JPEG at quality 85: gradients, blocks and grain.
    public static let jpeg24MP: Data = cached("jpeg-6000x4000-q85.jpg") {
        try VipsCoder.shared.encode(
            Image(pixels: pixels(width: 6000, height: 4000, seed: 0x5EED_2400, grain: 64), width: 6000, height: 4000, channels: 3),
            options: ImageEncodeOptions(format: .jpeg, quality: 85)
        )
    }

    /// 2000 × 2000 (4 MP) RGB PNG.
    public static let png4MP: Data = cached("png-2000x2000.png") {
        try VipsCoder.shared.encode(
            Image(pixels: pixels(width: 2000, height: 2000, seed: 0x5EED_0400, grain: 16), width: 2000, height: 2000, channels: 3),
            options: ImageEncodeOptions(format: .png)
        )
    }

    /// 4000 × 3000 (12 MP) RGB JPEG at quality 85: the source of the resize benchmarks.
    public static let jpeg12MP: Data = cached("jpeg-4000x3000-q85.jpg") {
        try VipsCoder.shared.encode(
            Image(pixels: pixels(width: 4000, height: 3000, seed: 0x5EED_1200, grain: 64), width: 4000, height: 3000, channels: 3),
            options: ImageEncodeOptions(format: .jpeg, quality: 85)
        )
    }

    private static func cached(_ name: String, make: () throws -> Data) -> Data {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-benchmark-fixtures-v\(version)", isDirectory: true)
        let file = folder.appendingPathComponent(name)
        if let data = try? Data(contentsOf: file), !data.isEmpty {
            return data
        }
        let data: Data
        do {
            data = try make()
        } catch {
            fatalError("cannot make the benchmark image \(name): \(error)")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: file, options: .atomic)
        } catch {
            // A read-only temporary directory only costs the next process a rebuild.
        }
        return data
    }

    /// Photo-like RGB pixels: smooth gradients, large blocks with edges, and per-pixel
    /// grain of `grain` levels (a power of two up to 256), so that JPEG and PNG sizes
    /// come close to those of real photographs.
    public static func pixels(width: Int, height: Int, seed: UInt64, grain: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, count in
            var state = seed | 1
            var index = 0
            let mask = UInt64(grain - 1)
            let half = grain / 2
            for y in 0..<height {
                let green = y * 255 / height
                for x in 0..<width {
                    // xorshift64: fast, deterministic grain.
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    let red = x * 255 / width
                    let blue = ((x / 211 + y / 173) & 1) * 120 + ((x + 2 * y) & 127)
                    buffer[index] = clamped(red + Int(state & mask) - half)
                    buffer[index + 1] = clamped(green + Int((state >> 8) & mask) - half)
                    buffer[index + 2] = clamped(blue + Int((state >> 16) & mask) - half)
                    index += 3
                }
            }
            count = index
        }
    }

    private static func clamped(_ value: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: min(255, max(0, value)))
    }
}
