import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImageFormat")
struct ImageFormatTests {
    @Test("K1 formats are detected from their bytes")
    func K1_detectsEveryFormat() throws {
        let image = try TestImages.gradient(width: 32, height: 24)
        for format in [ImageFormat.jpeg, .png, .gif, .webp, .avif, .heic, .tiff] {
            let data = try TestImages.encode(image, as: format)
            #expect(ImageFormat(data: data) == format, "encoded \(format)")
        }
        let bmp = Data("BM".utf8) + Data(repeating: 0, count: 60)
        #expect(ImageFormat(data: bmp) == .bmp)
        #expect(ImageFormat(data: Data([0, 0, 1, 0, 1, 0, 16, 16]) + Data(repeating: 0, count: 30)) == .ico)
        #expect(ImageFormat(data: Data([0xFF, 0x0A, 0x00, 0x01])) == .jxl)
        #expect(ImageFormat(data: Data([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])) == .jxl)
        #expect(ImageFormat(data: Data("%PDF-1.7\n".utf8)) == .pdf)
        #expect(ImageFormat(data: Data("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)) == .svg)
        #expect(ImageFormat(data: Data("  <svg width=\"10\" height=\"10\"></svg>".utf8)) == .svg)
        #expect(ImageFormat(data: isoHeader(major: "heic")) == .heic)
        #expect(ImageFormat(data: isoHeader(major: "mif1", compatible: ["mif1", "heic"])) == .heic)
        #expect(ImageFormat(data: isoHeader(major: "mif1", compatible: ["mif1"])) == .heif)
        #expect(ImageFormat(data: isoHeader(major: "avif")) == .avif)
        #expect(ImageFormat(data: isoHeader(major: "mif1", compatible: ["mif1", "avif"])) == .avif)
    }

    @Test("K1 text, HTML, empty and video data are unknown")
    func K1_unknownForNonImages() {
        #expect(ImageFormat(data: Data()) == .unknown)
        #expect(ImageFormat(data: Data("hello, world".utf8)) == .unknown)
        #expect(ImageFormat(data: Data("<!DOCTYPE html><html><body>404</body></html>".utf8)) == .unknown)
        #expect(ImageFormat(data: Data("<html><svg></svg></html>".utf8)) == .unknown)
        #expect(ImageFormat(data: Data([0xFF, 0xD8])) == .unknown)
        #expect(ImageFormat(data: isoHeader(major: "isom", compatible: ["mp41"])) == .unknown)
        #expect(ImageFormat(data: Data("RIFF\0\0\0\0WAVE".utf8)) == .unknown)
    }

    @Test("names and media types map to formats")
    func namesMapToFormats() {
        #expect(ImageFormat(name: "JPG") == .jpeg)
        #expect(ImageFormat(name: "image/webp") == .webp)
        #expect(ImageFormat(name: "image/svg+xml") == .svg)
        #expect(ImageFormat(name: "text/html") == nil)
        #expect(ImageFormat.jpeg.mimeType == "image/jpeg")
        #expect(ImageFormat.jpeg.fileExtension == "jpg")
    }

    private func isoHeader(major: String, compatible: [String] = []) -> Data {
        let brands = [major, "\0\0\0\0"] + compatible
        let size = 8 + brands.count * 4
        var data = Data([0, 0, 0, UInt8(size)])
        data.append(contentsOf: Array("ftyp".utf8))
        for brand in brands { data.append(contentsOf: Array(brand.utf8)) }
        return data + Data(repeating: 0, count: 16)
    }
}
