import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImageManager source URL")
struct ImageManagerSourceURLTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 40, height: 30), as: .png)

    // Revalidation needs the URL of a disk entry whatever its key.
    @Test("M10 a downloaded entry records its source URL; a thumbnail variant's entry does not")
    func sourceURLRecorded() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let manager = ImageManager(cache: TestCaches.make(), loader: downloader)
            defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
            origin.register("/a.png", .image(Self.png).withHeader("ETag", "\"v1\""))
            origin.register("/b.png", .image(Self.png))
            let a = origin.url("/a.png?sig=1")
            var filtered = ImageContext()
            filtered.cacheKeyFilter = { _ in "custom-key" }
            _ = try await manager.loadImage(from: a, options: .waitStoreCache, context: filtered)
            let entry = try #require(await manager.imageCache.diskCache?.entry(forKey: "custom-key"))
            #expect(entry.metadata.sourceURL == a)
            #expect(entry.metadata.etag == "\"v1\"")

            var thumbnail = ImageContext()
            thumbnail.thumbnailPixelSize = PixelSize(width: 8, height: 8)
            let b = origin.url("/b.png")
            _ = try await manager.loadImage(from: b, options: .waitStoreCache, context: thumbnail)
            let variantKey = try #require(manager.cacheKey(for: b, context: thumbnail))
            #expect(await manager.imageCache.diskCache?.entry(forKey: variantKey)?.metadata.sourceURL == nil)
            #expect(await manager.imageCache.diskCache?.entry(forKey: b.absoluteString)?.metadata.sourceURL == b, "the original kept for other variants")
        }
    }
}
