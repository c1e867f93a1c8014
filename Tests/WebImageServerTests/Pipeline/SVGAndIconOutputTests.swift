import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// SVG sources served as SVG or rasterised by imgproxy's rules, and BMP and ICO outputs.
/// The SVG cases are imgproxy's own (imgproxy/imgproxy, integration_test/processing_handler_test.go:
/// TestSkipProcessingSVG, TestNotSkipProcessingSVGToJPG, TestErrorSavingToSVG and the
/// TestAlwaysRasterizeSvg* cases), with this repository's test origin as the source.
@Suite("SVG, BMP and ICO outputs")
struct SVGAndIconOutputTests {
    static let svg = Data("""
        <svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" onload="alert(1)"><script>alert(2)</script>\
        <rect width="40" height="20" fill="#0f0"/></svg>
        """.utf8)
    static let png = try! TestImages.encode(try! TestImages.quadrants(width: 300, height: 150), as: .png)

    static func sources(_ origin: TestOrigin) -> (svg: String, png: String) {
        origin.register("/drawing.svg", .image(svg, contentType: "image/svg+xml"))
        origin.register("/photo.png", .image(png))
        return (origin.url("/drawing.svg").absoluteString, origin.url("/photo.png").absoluteString)
    }

    @Test("an SVG source with no format is served as sanitised SVG, whatever the processing options and Accept")
    func svgServedSanitised() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            let source = Self.sources(origin).svg
            let expected = try SVGSanitizer().sanitize(Self.svg)
            for path in ["/insecure/rs:fill:4:4/plain/\(source)", "/insecure/plain/\(source)", "/insecure/f:svg/plain/\(source)"] {
                for accept in [[], [("Accept", "image/avif,image/webp,*/*")]] {
                    let reply = try await proxy.get(path, headers: accept)
                    #expect(reply.status == 200, "\(path): \(reply.text.prefix(200))")
                    #expect(reply.header("content-type") == "image/svg+xml", "\(path)")
                    #expect(reply.body == expected, "\(path): \(reply.text)")
                }
            }
            #expect(!String(decoding: expected, as: UTF8.self).contains("alert"))
        }
    }

    @Test("with sanitising off the SVG's bytes pass unchanged")
    func svgUnsanitised() async throws {
        try await TestProxy.with(configure: { $0.encoding.sanitizeSVG = false }) { (origin, proxy) async throws in
            let reply = try await proxy.get("/insecure/plain/\(Self.sources(origin).svg)")
            #expect(reply.status == 200 && reply.header("content-type") == "image/svg+xml", "\(reply.text.prefix(200))")
            #expect(reply.body == Self.svg)
        }
    }

    /// Checks that `reply` is `format` rendered from the 40 × 20 green drawing, never the SVG itself.
    static func expectRendered(_ reply: TestProxy.Reply, as format: ImageFormat, _ path: String) throws {
        #expect(reply.status == 200 && reply.header("content-type") == format.mimeType, "\(path): \(reply.text.prefix(200))")
        #expect(ImageFormat(data: reply.body) == format, "\(path)")
    }

    @Test("an SVG source asked for as a raster format is rendered: f:png answers PNG, @jpg JPEG")
    func svgRasterisedWhenAsked() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            let source = Self.sources(origin).svg
            let path = "/insecure/f:png/plain/\(source)"
            let png = try await proxy.get(path)
            try Self.expectRendered(png, as: .png, path)
            let image = try VipsCoder.shared.decode(png.body, options: .init())
            #expect(image.pixelSize == PixelSize(width: 40, height: 20))
            #expect(Array(try image.pixel(x: 20, y: 10).prefix(3)) == [0, 255, 0])
            let jpegPath = "/insecure/rs:fill:4:4/plain/\(source)@jpg"
            try Self.expectRendered(try await proxy.get(jpegPath), as: .jpeg, jpegPath)
        }
    }

    @Test("a raster source asked for as SVG is 422")
    func rasterAsSVG() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            let reply = try await proxy.get("/insecure/rs:fill:4:4/plain/\(Self.sources(origin).png)@svg")
            #expect(reply.status == 422, "\(reply.text.prefix(200))")
        }
    }

    @Test("always rasterising: no format gives the preferred format that fits, or WebP when enforced and accepted")
    func alwaysRasterize() async throws {
        try await TestProxy.with(configure: { $0.encoding.alwaysRasterizeSVG = true }) { (origin, proxy) async throws in
            let path = "/insecure/rs:fill:40:40/plain/\(Self.sources(origin).svg)"
            try Self.expectRendered(try await proxy.get(path), as: .png, path)
        }
        try await TestProxy.with(configure: { $0.encoding.alwaysRasterizeSVG = true; $0.encoding.enforceWebP = true }) { (origin, proxy) async throws in
            let path = "/insecure/plain/\(Self.sources(origin).svg)"
            try Self.expectRendered(try await proxy.get(path, headers: [("Accept", "image/webp")]), as: .webp, path)
        }
    }

    @Test("not rasterising with WebP enforced, and rasterising with SVG among the formats served unprocessed, serve SVG")
    func svgDespiteEnforcementOrRasterising() async throws {
        try await TestProxy.with(configure: { $0.encoding.enforceWebP = true }) { (origin, proxy) async throws in
            let reply = try await proxy.get("/insecure/plain/\(Self.sources(origin).svg)")
            #expect(reply.status == 200 && reply.header("content-type") == "image/svg+xml")
        }
        try await TestProxy.with(configure: { $0.encoding.alwaysRasterizeSVG = true; $0.encoding.skipProcessingFormats = [.svg] }) {
            (origin, proxy) async throws in
            let source = Self.sources(origin).svg
            for path in ["/insecure/plain/\(source)@svg", "/insecure/plain/\(source)"] {
                let reply = try await proxy.get(path)
                #expect(reply.status == 200 && reply.header("content-type") == "image/svg+xml", "\(path)")
                #expect(reply.body == (try SVGSanitizer().sanitize(Self.svg)), "skipped processing still sanitises")
            }
        }
    }

    @Test("f:bmp, f:ico and the .bmp and .ico extensions answer BMP and ICO with their types; an icon fits in 256 pixels")
    func bmpAndICO() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            let source = Self.sources(origin).png
            let paths: [(String, ImageFormat, String)] = [
                ("/insecure/f:bmp/plain/\(source)", .bmp, "image/bmp"),
                ("/insecure/plain/\(source)@bmp", .bmp, "image/bmp"),
                ("/insecure/f:ico/plain/\(source)", .ico, "image/vnd.microsoft.icon"),
                ("/insecure/rs:fit:64:64/plain/\(source)@ico", .ico, "image/vnd.microsoft.icon"),
            ]
            for (path, format, type) in paths {
                let reply = try await proxy.get(path)
                #expect(reply.status == 200, "\(path): \(reply.text.prefix(200))")
                #expect(ImageFormat(data: reply.body) == format && reply.header("content-type") == type, "\(path)")
            }
            let bmp = try await proxy.get("/insecure/f:bmp/plain/\(source)")
            #expect(BMPReaderFields.size(of: bmp.body) == PixelSize(width: 300, height: 150))
            let icon = try await proxy.get("/insecure/f:ico/plain/\(source)")
            #expect(Array(icon.body[6..<8]) == [0, 128], "300 × 150 fitted to 256 × 128")
            let small = try await proxy.get("/insecure/rs:fit:64:64/plain/\(source)@ico")
            #expect(Array(small.body[6..<8]) == [64, 32])
        }
    }
}

/// The size a BMP header declares.
enum BMPReaderFields {
    static func size(of data: Data) -> PixelSize {
        func int32(_ offset: Int) -> Int32 { Int32(bitPattern: data[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }) }
        return PixelSize(width: Int(int32(18)), height: Int(abs(int32(22))))
    }
}
