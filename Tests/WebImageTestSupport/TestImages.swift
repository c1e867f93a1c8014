import CVips
import Foundation
@testable import WebImage

/// Images the tests draw and encode themselves, so no binary fixtures are needed.
package enum TestImages {
    /// RGB(A) colours of the four quadrants of ``quadrants(width:height:alpha:)``.
    package static let topLeft = [255, 0, 0], topRight = [0, 255, 0], bottomLeft = [0, 0, 255], bottomRight = [255, 255, 255]

    /// An image whose four quadrants are red, green, blue and white: any flip or
    /// rotation shows in a probe of the quadrant centres.
    package static func quadrants(width: Int, height: Int, alpha: Bool = false) throws -> Image {
        try drawn.image(for: "quadrants \(width)x\(height) \(alpha)") { try drawQuadrants(width: width, height: height, alpha: alpha) }
    }

    private static func drawQuadrants(width: Int, height: Int, alpha: Bool) throws -> Image {
        let channels = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        // Through a buffer pointer: an array's subscript in a debug build costs seconds over
        // the suite's images.
        pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                for x in 0..<width {
                    let colour = y < height / 2 ? (x < width / 2 ? topLeft : topRight) : (x < width / 2 ? bottomLeft : bottomRight)
                    let base = (y * width + x) * channels
                    pixels[base] = UInt8(colour[0])
                    pixels[base + 1] = UInt8(colour[1])
                    pixels[base + 2] = UInt8(colour[2])
                    if alpha { pixels[base + 3] = 255 }
                }
            }
        }
        return try Image(pixels: pixels, width: width, height: height, channels: channels)
    }

    /// A smooth, detailed RGB gradient: compresses like a photo, not like flat colour.
    package static func gradient(width: Int, height: Int, seed: Int = 0) throws -> Image {
        try drawn.image(for: "gradient \(width)x\(height) \(seed)") { try drawGradient(width: width, height: height, seed: seed) }
    }

    private static func drawGradient(width: Int, height: Int, seed: Int) throws -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let (xSpan, ySpan) = (max(1, width - 1), max(1, height - 1))
        pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                let green = UInt8((y * 255 / ySpan) & 0xFF)
                for x in 0..<width {
                    let base = (y * width + x) * 3
                    pixels[base] = UInt8((x * 255 / xSpan + seed) & 0xFF)
                    pixels[base + 1] = green
                    pixels[base + 2] = UInt8(((x ^ y) * 7 + seed * 13) & 0xFF)
                }
            }
        }
        return try Image(pixels: pixels, width: width, height: height, channels: 3)
    }

    /// An RGBA image, transparent on its left half and opaque green on the right.
    package static func halfTransparent(width: Int, height: Int) throws -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in width / 2..<width {
                let base = (y * width + x) * 4
                pixels[base + 1] = 255
                pixels[base + 3] = 255
            }
        }
        return try Image(pixels: pixels, width: width, height: height, channels: 4)
    }

    package static func encode(_ image: Image, as format: ImageFormat, quality: Int = 85, progressive: Bool = false) throws -> Data {
        try VipsCoder.shared.encode(image, options: ImageEncodeOptions(format: format, quality: quality, progressive: progressive))
    }

    /// A JPEG of `upright` stored so that EXIF `orientation` (1–8) turns it back upright.
    package static func jpeg(upright: Image, orientation: Int) throws -> Data {
        let pixels = [UInt8](try upright.pixels())
        let (dw, dh, channels) = (upright.pixelSize.width, upright.pixelSize.height, upright.channels)
        let (sw, sh) = orientation >= 5 ? (dh, dw) : (dw, dh)
        var stored = [UInt8](repeating: 0, count: sw * sh * channels)
        pixels.withUnsafeBufferPointer { pixels in
            stored.withUnsafeMutableBufferPointer { stored in
                for sy in 0..<sh {
                    for sx in 0..<sw {
                        // Where the stored pixel (sx, sy) appears once the orientation is applied.
                        let (dx, dy): (Int, Int) = switch orientation {
                        case 2: (sw - 1 - sx, sy)
                        case 3: (sw - 1 - sx, sh - 1 - sy)
                        case 4: (sx, sh - 1 - sy)
                        case 5: (sy, sx)
                        case 6: (sh - 1 - sy, sx)
                        case 7: (sh - 1 - sy, sw - 1 - sx)
                        case 8: (sy, sw - 1 - sx)
                        default: (sx, sy)
                        }
                        for c in 0..<channels { stored[(sy * sw + sx) * channels + c] = pixels[(dy * dw + dx) * channels + c] }
                    }
                }
            }
        }
        let image = try Image(pixels: stored, width: sw, height: sh, channels: channels)
        let tagged = try Vips.run("copy") { wi_copy(image.handle.pointer, $0) }
        wi_set_int(tagged.pointer, "orientation", Int32(orientation))
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard wi_jpegsave(tagged.pointer, &buffer, &length, 95, 0, 0) == 0, let buffer else {
            throw ImageError.encodingFailed(Vips.takeError())
        }
        defer { wi_g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// A valid PNG header declaring `width` × `height` followed by a few bytes of image
    /// data: a decompression bomb in miniature, a few hundred bytes long.
    package static func pngBomb(width: UInt32, height: UInt32) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func chunk(_ type: String, _ body: [UInt8]) {
            var length = UInt32(body.count).bigEndian
            data.append(Data(bytes: &length, count: 4))
            let typed = Array(type.utf8) + body
            data.append(contentsOf: typed)
            var crc = crc32(typed).bigEndian
            data.append(Data(bytes: &crc, count: 4))
        }
        func be(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
        chunk("IHDR", be(width) + be(height) + [8, 2, 0, 0, 0])
        // A zlib stream of a few zero rows: enough to look plausible, far too little to be real.
        chunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x18, 0x05, 0xA3, 0x60, 0x14, 0x0C, 0x77, 0x00, 0x00])
        chunk("IEND", [])
        return data
    }

    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// Whether two channel lists match within `tolerance` (lossy codecs move values a little).
package func close(_ a: [Int], _ b: [Int], tolerance: Int = 40) -> Bool {
    a.count >= b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
}
