import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Reads back the BMP files `BMPEncoder` writes, by the format's rules (the masks and the
/// palette as the header gives them): libvips reads BMP only through ImageMagick, an
/// untrusted loader this process keeps blocked.
enum BMPReader {
    static func uint32(_ data: Data, _ offset: Int) -> UInt32 {
        data[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func uint16(_ data: Data, _ offset: Int) -> UInt16 {
        UInt16(data[offset]) | UInt16(data[offset + 1]) << 8
    }

    /// The pixels, top row first, with as many channels as the file has (1, 3 or 4).
    static func pixels(_ data: Data) -> (width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        let offset = Int(uint32(data, 10))
        let headerSize = Int(uint32(data, 14))
        let width = Int(Int32(bitPattern: uint32(data, 18)))
        let signedHeight = Int(Int32(bitPattern: uint32(data, 22)))
        let bits = Int(uint16(data, 28))
        let compression = uint32(data, 30)
        let channels = bits / 8
        let rowSize = (width * channels + 3) & ~3
        let masks = compression == 3 ? (0..<4).map { uint32(data, 54 + $0 * 4) } : []
        var pixels: [UInt8] = []
        for y in 0..<abs(signedHeight) {
            let row = offset + (signedHeight < 0 ? y : abs(signedHeight) - 1 - y) * rowSize
            for x in 0..<width {
                let p = row + x * channels
                switch channels {
                case 1:
                    let entry = 14 + headerSize + Int(data[p]) * 4
                    pixels.append(data[entry + 2])
                case 3:
                    pixels += [data[p + 2], data[p + 1], data[p]]
                default:
                    let value = uint32(data, p)
                    pixels += masks.map { mask in UInt8((value & mask) >> UInt32(mask.trailingZeroBitCount)) }
                }
            }
        }
        return (width, abs(signedHeight), channels, pixels)
    }
}

@Suite("BMP and ICO encoding")
struct BMPAndICOEncodingTests {
    let coder = VipsCoder.shared

    /// `width × height` pixels of `channels` channels whose values all differ from their neighbours'.
    static func pattern(width: Int, height: Int, channels: Int) -> [UInt8] {
        (0..<(width * height * channels)).map { UInt8(truncatingIfNeeded: $0 * 37 + $0 / 7) }
    }

    static func bytes(_ data: Data, _ range: Range<Int>) -> [UInt8] { Array(data[range]) }

    @Test("BMP of RGB: the header field by field, rows padded to four bytes in blue, green, red")
    func bmpRGBHeader() throws {
        let pixels: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30, 40, 50, 60, 70, 80, 90]
        let data = try coder.encode(try Image(pixels: pixels, width: 3, height: 2, channels: 3), options: .init(format: .bmp))
        #expect(data.count == 14 + 124 + 2 * 12)
        #expect(Self.bytes(data, 0..<2) == Array("BM".utf8))
        #expect(BMPReader.uint32(data, 2) == UInt32(data.count))
        #expect(BMPReader.uint32(data, 6) == 0)
        #expect(BMPReader.uint32(data, 10) == 138, "the pixels follow the two headers")
        #expect(BMPReader.uint32(data, 14) == 124, "BITMAPV5HEADER")
        #expect(BMPReader.uint32(data, 18) == 3)
        #expect(Self.bytes(data, 22..<26) == [0xFE, 0xFF, 0xFF, 0xFF], "height -2: top-down")
        #expect(BMPReader.uint16(data, 26) == 1)
        #expect(BMPReader.uint16(data, 28) == 24)
        #expect(BMPReader.uint32(data, 30) == 0, "BI_RGB")
        #expect(BMPReader.uint32(data, 34) == 24)
        #expect(Self.bytes(data, 38..<54) == [UInt8](repeating: 0, count: 16), "resolution and palette sizes")
        #expect(Self.bytes(data, 54..<70) == [UInt8](repeating: 0, count: 16), "no masks with BI_RGB")
        #expect(Self.bytes(data, 70..<74) == Array("BGRs".utf8), "LCS_sRGB")
        #expect(Self.bytes(data, 74..<122) == [UInt8](repeating: 0, count: 48))
        #expect(BMPReader.uint32(data, 122) == 4, "LCS_GM_IMAGES")
        #expect(Self.bytes(data, 126..<138) == [UInt8](repeating: 0, count: 12))
        #expect(Self.bytes(data, 138..<150) == [0, 0, 255, 0, 255, 0, 255, 0, 0, 0, 0, 0])
        #expect(Self.bytes(data, 150..<162) == [30, 20, 10, 60, 50, 40, 90, 80, 70, 0, 0, 0])
    }

    @Test("BMP of RGBA: 32 bits as BI_BITFIELDS with an alpha mask")
    func bmpRGBAHeader() throws {
        let pixels: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let data = try coder.encode(try Image(pixels: pixels, width: 2, height: 1, channels: 4), options: .init(format: .bmp))
        #expect(data.count == 14 + 124 + 8)
        #expect(BMPReader.uint16(data, 28) == 32)
        #expect(BMPReader.uint32(data, 30) == 3, "BI_BITFIELDS")
        #expect([54, 58, 62, 66].map { BMPReader.uint32(data, $0) } == [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0xFF00_0000])
        #expect(Self.bytes(data, 138..<146) == [3, 2, 1, 4, 7, 6, 5, 8])
    }

    @Test("BMP of grey: BITMAPINFOHEADER and a 256-entry grey palette")
    func bmpGreyHeader() throws {
        let data = try coder.encode(try Image(pixels: [0, 128, 255], width: 3, height: 1, channels: 1), options: .init(format: .bmp))
        #expect(data.count == 14 + 40 + 1024 + 4)
        #expect(BMPReader.uint32(data, 10) == 1078)
        #expect(BMPReader.uint32(data, 14) == 40)
        #expect(BMPReader.uint16(data, 28) == 8)
        #expect(BMPReader.uint32(data, 46) == 256, "colours used")
        #expect(Self.bytes(data, 54 + 128 * 4..<54 + 129 * 4) == [128, 128, 128, 0])
        #expect(Self.bytes(data, 1078..<1082) == [0, 128, 255, 0])
    }

    @Test("BMP round trips: the same pixels, alpha kept, for grey, grey + alpha, RGB and RGBA", arguments: [1, 2, 3, 4])
    func bmpRoundTrip(channels: Int) throws {
        let (width, height) = (13, 7)
        let pixels = Self.pattern(width: width, height: height, channels: channels)
        let data = try coder.encode(try Image(pixels: pixels, width: width, height: height, channels: channels), options: .init(format: .bmp))
        #expect(ImageFormat(data: data) == .bmp)
        let back = BMPReader.pixels(data)
        #expect(back.width == width && back.height == height)
        if channels == 2 {
            // Grey with alpha is written as RGBA.
            let expanded = stride(from: 0, to: pixels.count, by: 2).flatMap { [pixels[$0], pixels[$0], pixels[$0], pixels[$0 + 1]] }
            #expect(back.channels == 4 && back.pixels == expanded)
        } else {
            #expect(back.channels == channels && back.pixels == pixels)
        }
    }

    /// The PNG an icon holds, after the 22 bytes of its header.
    static func png(in ico: Data) -> Data { ico.subdata(in: 22..<ico.count) }

    @Test("ICO: ICONDIR and ICONDIRENTRY byte by byte, then the PNG")
    func icoHeader() throws {
        let image = try Image(pixels: Self.pattern(width: 40, height: 24, channels: 4), width: 40, height: 24, channels: 4)
        let data = try coder.encode(image, options: .init(format: .ico))
        #expect(ImageFormat(data: data) == .ico)
        #expect(Self.bytes(data, 0..<6) == [0, 0, 1, 0, 1, 0])
        #expect(Self.bytes(data, 6..<14) == [40, 24, 0, 0, 1, 0, 32, 0])
        #expect(BMPReader.uint32(data, 14) == UInt32(data.count - 22))
        #expect(BMPReader.uint32(data, 18) == 22)
        #expect(ImageFormat(data: Self.png(in: data)) == .png)
    }

    @Test("ICO round trips through the PNG libvips reads: the same pixels, alpha kept")
    func icoRoundTrip() throws {
        let pixels = Self.pattern(width: 31, height: 17, channels: 4)
        let data = try coder.encode(try Image(pixels: pixels, width: 31, height: 17, channels: 4), options: .init(format: .ico))
        let back = try coder.decode(Self.png(in: data), options: .init())
        #expect(back.pixelSize == PixelSize(width: 31, height: 17) && back.hasAlpha)
        #expect(Array(try back.pixels()) == pixels)

        let rgb = Self.pattern(width: 5, height: 3, channels: 3)
        let opaque = try coder.encode(try Image(pixels: rgb, width: 5, height: 3, channels: 3), options: .init(format: .ico))
        #expect(Self.bytes(opaque, 12..<14) == [24, 0], "24 bits without alpha")
        #expect(Array(try coder.decode(Self.png(in: opaque), options: .init()).pixels()) == rgb)
    }

    @Test("ICO of a picture larger than 256 pixels is scaled down to fit, as imgproxy does; 256 is written as 0")
    func icoLargerThan256() throws {
        let large = try TestImages.quadrants(width: 600, height: 300)
        let data = try coder.encode(large, options: .init(format: .ico))
        #expect(Self.bytes(data, 6..<8) == [0, 128], "256 × 128")
        let back = try coder.decode(Self.png(in: data), options: .init())
        #expect(back.pixelSize == PixelSize(width: 256, height: 128))

        let square = try coder.encode(try TestImages.quadrants(width: 256, height: 256), options: .init(format: .ico))
        #expect(Self.bytes(square, 6..<8) == [0, 0])
        #expect(try coder.decode(Self.png(in: square), options: .init()).pixelSize == PixelSize(width: 256, height: 256))
    }

    @Test("ICO scaled down to fit keeps the colour of its edges: transparent black around a red square does not darken it")
    func icoScaledDownPremultiplied() throws {
        // 512 × 512: a red square in the middle of transparent black, halved to 256.
        var pixels = [UInt8](repeating: 0, count: 512 * 512 * 4)
        for y in 129..<383 { for x in 129..<383 { pixels.replaceSubrange((y * 512 + x) * 4..<(y * 512 + x) * 4 + 4, with: [255, 0, 0, 255]) } }
        let data = try coder.encode(try Image(pixels: pixels, width: 512, height: 512, channels: 4), options: .init(format: .ico))
        let back = try coder.decode(Self.png(in: data), options: .init())
        #expect(back.pixelSize == PixelSize(width: 256, height: 256))
        let out = [UInt8](try back.pixels())
        var edges = 0
        for index in stride(from: 0, to: out.count, by: 4) where out[index + 3] > 0 && out[index + 3] < 255 {
            edges += 1
            #expect(out[index] > 240 && out[index + 1] < 16 && out[index + 2] < 16, "an edge pixel is red, not darkened: \(out[index..<index + 4])")
        }
        #expect(edges > 0, "the resample made semi-transparent edge pixels")
    }

    @Test("ICO of grey is written in colour; the ICO writer refuses sides over 256")
    func icoGreyAndLimit() throws {
        let grey = try coder.encode(try Image(pixels: [0, 100, 200, 255], width: 2, height: 2, channels: 1), options: .init(format: .ico))
        #expect(Self.bytes(grey, 12..<14) == [24, 0])
        #expect(Array(try coder.decode(Self.png(in: grey), options: .init()).pixel(x: 1, y: 0)) == [100, 100, 100])
        #expect(throws: ImageError.self) { try ICOEncoder.wrap(png: Data(), width: 257, height: 10, hasAlpha: true) }
    }
}
