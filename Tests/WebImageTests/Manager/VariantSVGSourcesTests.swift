import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImageManager variants: SVG sources served as SVG")
struct VariantSVGSourcesTests {
    static let svg = Data("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 30 10\" onload=\"alert(1)\"><rect width=\"30\" height=\"10\"/></svg>".utf8)
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 80, height: 60), as: .png)

    static func request(_ url: URL, _ handling: SVGSourceHandling, format: VariantFormat = .fixed(.webp)) -> ImageRequest {
        ImageRequest.variant(
            url: url, transformer: ResizeTransformer(size: PixelSize(width: 40, height: 30)),
            encoding: VariantEncoding(format: format, svgSources: handling)
        )
    }

    @Test("an SVG source is served sanitised, or as it is, with the size it declares; nothing is encoded")
    func svgServed() async throws {
        try await ImageManagerVariantTests.withVariantManager { origin, manager, coder in
            origin.register("/a.svg", .image(Self.svg, contentType: "image/svg+xml"))
            let url = origin.url("/a.svg")
            let sanitized = try await manager.loadVariant(Self.request(url, .serveSanitized))
            #expect(sanitized.variant.data == (try SVGSanitizer().sanitize(Self.svg)))
            #expect(sanitized.variant.format == .svg && sanitized.variant.pixelSize == PixelSize(width: 30, height: 10))
            let unchanged = try await manager.loadVariant(Self.request(url, .serve(sanitizer: nil)))
            #expect(unchanged.variant.data == Self.svg)
            #expect(coder.encodeCount == 0)
        }
    }

    @Test("a raster source is made as the format says; asked for as SVG it is an invalid transform")
    func rasterSource() async throws {
        try await ImageManagerVariantTests.withVariantManager { origin, manager, _ in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png")
            let made = try await manager.loadVariant(Self.request(url, .serveSanitized))
            #expect(made.variant.format == .webp && made.variant.pixelSize == PixelSize(width: 40, height: 30))
            do {
                _ = try await manager.loadVariant(Self.request(url, .serveSanitized, format: .fixed(.svg)))
                Issue.record("a PNG was made into an SVG")
            } catch let error as ImageError {
                guard case .invalidTransform(let reason) = error else { throw error }
                #expect(reason.contains("SVG source") && reason.contains("png"), "\(reason)")
            }
        }
    }

    @Test("the key names how SVG sources are handled, and only when they are served")
    func keys() {
        let url = URL(string: "http://h/a.svg")!
        #expect(!Self.request(url, .rasterize).variantKey.contains("svg:"))
        #expect(Self.request(url, .serveSanitized).variantKey.contains(",svg:sanitized"))
        #expect(Self.request(url, .serve(sanitizer: nil)).variantKey.contains(",svg:as-is"))
        #expect(Self.request(url, .serve(sanitizer: SVGSanitizer(maxDepth: 9))).variantKey.contains(",svg:sanitized(\(32 << 20),9)"))
    }
}
