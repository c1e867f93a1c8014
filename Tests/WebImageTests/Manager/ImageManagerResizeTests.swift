import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

extension ImageManagerTests {
    // SPEC K8 / K9 / M7
    @Test("K8 a manager load with a ResizeTransformer returns the resized image under the transformed key")
    func K8_managerResize() async throws {
        try await withManager { origin, manager in
            let png = try TestImages.encode(try TestImages.quadrants(width: 400, height: 200), as: .png)
            origin.register("/r.png", .image(png))
            let url = origin.url("/r.png")
            var context = ImageContext()
            context.transformer = ResizeTransformer(size: PixelSize(width: 100, height: 100), mode: .fill, gravity: .east)
            let result = try await manager.loadImage(from: url, options: .waitStoreCache, context: context)
            let image = try #require(result.image)
            #expect(image.pixelSize == PixelSize(width: 100, height: 100))
            #expect(close(try image.pixel(x: 20, y: 20), TestImages.topRight, tolerance: 6))
            #expect(close(try image.pixel(x: 20, y: 80), TestImages.bottomRight, tolerance: 6))
            let key = try #require(manager.cacheKey(for: url, context: context))
            #expect(key.hasSuffix("/r-resize-fill-100x100-ea.png"))
            #expect(await manager.cache.diskCache.data(forKey: key) != nil)
            #expect(origin.totalRequestCount == 1)
        }
    }
}
