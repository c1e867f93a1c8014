import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTestSupport

// Speed: a large JPEG scaled down to a small fit or fill decodes with
// shrink-on-load, and the transformer gives the output size planned for the full source.
@Suite("Proxy shrink-on-load")
struct ShrinkOnLoadTests {
    static let source = PixelSize(width: 3000, height: 2000)
    /// One 6 MP JPEG shared by the tests (drawing it is the slow part).
    static let sourceJPEG = Result { try TestImages.encode(TestImages.gradient(width: source.width, height: source.height), as: .jpeg) }

    static func options(_ text: String) throws -> ProcessingOptions {
        try ProxyURLParser(keys: []).parse(path: "/_/\(text)/plain/http://example.com/a.jpg").options
    }

    @Test("S5 fit: thumbnailPixelSize decodes a 6 MP JPEG with shrink-on-load; the planned output size")
    func fitUsesShrinkOnLoad() throws {
        let jpeg = try Self.sourceJPEG.get()
        for text in ["rs:fit:300:300", "w:300/rot:90", "rs:fit:150:150/dpr:2/ex:1"] {
            let options = try Self.options(text)
            let box = try #require(options.thumbnailPixelSize)
            let decoded = try VipsCoder.shared.decode(jpeg, options: ImageDecodeOptions(thumbnailPixelSize: box))
            // The JPEG decoder scaled the DCT: it never produced the full 3000×2000 pixels.
            #expect(decoded.loadedPixelSize.width < Self.source.width, "\(text)")
            // The transformer plans for the source's size and resizes from the decoded image.
            #expect(try ProxyTransformer(options: options).transform(decoded).pixelSize == options.plan(for: Self.source).outputSize, "\(text)")
        }
    }

    @Test("S5 fill: decodeHint from the header decodes with shrink-on-load; the planned output size")
    func fillUsesDecodeHint() throws {
        let jpeg = try Self.sourceJPEG.get()
        let header = try VipsCoder.shared.inspect(jpeg)
        for text in ["rs:fill:300:300", "rs:force:200:400", "rs:fill-down:250:100/g:nowe:5:5", "rs:auto:300:300/rot:270"] {
            let options = try Self.options(text)
            let hint = try #require(options.decodeHint(sourceSize: header.pixelSize))
            let decoded = try VipsCoder.shared.decode(jpeg, options: ImageDecodeOptions(thumbnailPixelSize: hint))
            #expect(decoded.loadedPixelSize.width < Self.source.width, "\(text)")
            #expect(try ProxyTransformer(options: options).transform(decoded).pixelSize == options.plan(for: Self.source).outputSize, "\(text)")
        }
    }
}
