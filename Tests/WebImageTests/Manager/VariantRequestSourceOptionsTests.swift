import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImageManager variants: passthrough formats, embedded thumbnails, per-request source size")
struct VariantRequestSourceOptionsTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 80, height: 60), as: .png)

    static func request(_ url: URL, passthroughFormats: Set<ImageFormat> = [], quality: Int? = nil) -> ImageRequest {
        ImageRequest.variant(
            url: url, transformer: ResizeTransformer(size: PixelSize(width: 40, height: 30)),
            encoding: VariantEncoding(format: .fixed(.webp), quality: quality), passthroughFormats: passthroughFormats
        )
    }

    @Test("a source in a passthrough format is served as it is; in another format it is made")
    func passthroughFormats() async throws {
        try await ImageManagerVariantTests.withVariantManager { origin, manager, coder in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png")
            let passed = try await manager.loadVariant(Self.request(url, passthroughFormats: [.png, .gif]))
            #expect(passed.variant.data == Self.png && passed.variant.format == .png)
            #expect(coder.encodeCount == 0)
            let made = try await manager.loadVariant(Self.request(url, passthroughFormats: [.jpeg]))
            #expect(made.variant.format == .webp && made.variant.pixelSize == PixelSize(width: 40, height: 30))
        }
    }

    @Test("the keys name the passthrough formats and the embedded thumbnail")
    func keys() {
        let url = URL(string: "http://h/a.png")!
        #expect(Self.request(url, passthroughFormats: [.png, .gif]).variantKey.hasPrefix("variant(passthrough(gif,png);"))
        var thumbnail = Self.request(url)
        thumbnail.processing.preferEmbeddedThumbnail = true
        #expect(thumbnail.variantKey.contains(";embedded-thumbnail;") || thumbnail.variantKey.hasPrefix("variant(embedded-thumbnail;"))
        #expect(!Self.request(url).variantKey.contains("passthrough"))
    }

    @Test("a per-request source size limit refuses larger downloads and larger cached originals; a larger one lifts the downloader's")
    func maxSourceBytes() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png")
            let cache = TestCaches.make { $0.shouldCacheImagesInMemory = false }
            defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
            let manager = ImageManager(cache: cache, loader: ImageLoaders([downloader]))
            func tight(_ request: ImageRequest) -> ImageRequest {
                var request = request
                request.maxSourceBytes = 100
                return request
            }
            await #expect(throws: ImageError.bodyTooLarge(limit: 100)) {
                try await manager.loadVariant(tight(Self.request(url).adding([.waitStoreCache, .retryFailed])))
            }
            _ = try await manager.loadVariant(Self.request(url).adding([.waitStoreCache, .retryFailed]))
            let other = Self.request(url, quality: 50)
            await #expect(throws: ImageError.bodyTooLarge(limit: 100)) {
                try await manager.loadVariant(tight(other.adding(.retryFailed)))
            }
            #expect(origin.requestCount("/a.png") == 2, "the cached original was refused without a download")
        }
        try await withOriginAndDownloader(configure: { $0.maxBodySize = 100 }) { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([downloader]))
            await #expect(throws: ImageError.bodyTooLarge(limit: 100)) { try await manager.loadVariant(Self.request(origin.url("/a.png"))) }
            var generous = Self.request(origin.url("/a.png")).adding(.retryFailed)
            generous.maxSourceBytes = 1 << 20
            let lifted = try await manager.loadVariant(generous)
            #expect(lifted.variant.format == .webp)
        }
    }
}
