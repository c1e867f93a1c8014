import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Images held in memory")
struct StaticImageLoaderTests {
    @Test("bytes set for a URL load through the manager, are cached, and can be replaced or removed")
    func loadsHeldBytes() async throws {
        let png = try TestImages.encode(try TestImages.quadrants(width: 20, height: 10), as: .png)
        let url = URL(string: "app-image:///placeholder")!
        let loader = StaticImageLoader(scheme: "APP-IMAGE")
        #expect(loader.canLoad(url) && !loader.canLoad(URL(string: "https://example.com/a.png")!))
        #expect(!loader.hasData(for: url))
        await #expect { try await loader.load(url, options: DownloadOptions(), progress: nil) } throws: { error in
            guard case .notFound(let reason) = error as? ImageError else { return false }
            return reason.contains("app-image:///placeholder")
        }

        loader.setData(png, for: url)
        #expect(loader.hasData(for: url))
        let manager = ImageManager(cache: TestCaches.make(), loader: loader)
        let first = try await manager.loadImage(from: url)
        #expect(first.image?.pixelSize == PixelSize(width: 20, height: 10))
        #expect(first.cacheType == CacheType.none)
        #expect(try await manager.loadImage(from: url).cacheType == .memory)

        loader.setData(nil, for: url)
        #expect(!loader.hasData(for: url))
    }
}
