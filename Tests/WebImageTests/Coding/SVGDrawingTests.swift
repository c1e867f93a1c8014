import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// SVG decoded by libvips' SVG loader (librsvg), which is given only what the sanitiser
/// wrote: drawn as the document says, without its scripts, external references or entities.
@Suite("SVG drawing")
struct SVGDrawingTests {
    static func svg(_ body: String) -> Data {
        Data("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"40\" height=\"20\">\(body)</svg>".utf8)
    }

    @Test("an SVG is drawn at its declared size, and its header read")
    func drawn() throws {
        let data = Self.svg("<rect width=\"40\" height=\"20\" fill=\"#00ff00\"/>")
        let image = try VipsCoder.shared.decode(data, options: .init())
        #expect(image.pixelSize == PixelSize(width: 40, height: 20))
        #expect(Array(try image.pixel(x: 20, y: 10).prefix(3)) == [0, 255, 0])
        #expect(try VipsCoder.shared.inspect(data).format == .svg)
    }

    @Test("a hostile SVG is drawn from its sanitised form: the external picture is not drawn, the shapes are")
    func hostileDrawnSanitised() throws {
        // A local file that libvips could read were the reference kept: an opaque red PNG.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("svg-external-\(UUID().uuidString).png")
        let red = try Image(pixels: [UInt8](repeating: 0, count: 40 * 20 * 3).enumerated().map { $0.offset % 3 == 0 ? 255 : 0 }, width: 40, height: 20, channels: 3)
        try VipsCoder.shared.encode(red, options: ImageEncodeOptions(format: .png)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let data = Self.svg("""
        <rect width="40" height="20" fill="#0000ff"/><script>alert(1)</script>\
        <image xlink:href="\(file.absoluteString)" width="40" height="20"/>
        """)
        let image = try VipsCoder.shared.decode(data, options: .init())
        #expect(Array(try image.pixel(x: 20, y: 10).prefix(3)) == [0, 0, 255])
    }

    @Test("a partial SVG is not drawn: a document is sanitised whole")
    func partialIsNil() throws {
        let data = Self.svg("<rect width=\"40\" height=\"20\" fill=\"#00ff00\"/>")
        #expect(try VipsCoder.shared.decodePartial(data.prefix(40), options: .init()) == nil)
    }
}
