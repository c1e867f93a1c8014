import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The memory-hit fast path must answer exactly as the full path would.
extension ImageManagerTests {
    @Test("a memory hit still honours a blocked URL, retryFailed, key filters and cache overrides")
    func memoryHitFastPathKeepsEveryRule() async throws {
        try await withManager { origin, manager in
            let url = origin.url("/hit.png")
            let image = try TestImages.quadrants(width: 8, height: 8)
            manager.cache.storeToMemory(image, forKey: try #require(manager.cacheKey(for: url)))

            let plain = try await manager.loadImage(from: url)
            #expect(plain.cacheType == .memory)
            let task = manager.loadImage(with: url) { _ in }
            #expect(task.isFinished && !task.isCancelled && task.url == url)

            manager.failedURLs.record(url, error: .badImageData("test"))
            await #expect(throws: ImageError.blockedURL(url)) { try await manager.loadImage(from: url) }
            #expect(try await manager.loadImage(from: url, options: .retryFailed).cacheType == .memory)
            manager.removeAllFailedURLs()

            var noCache = ImageContext()
            noCache.cacheKeyFilter = { _ in nil }
            origin.register("/hit.png", .image(Self.png))
            #expect(try await manager.loadImage(from: url, context: noCache).cacheType == .none, "a nil key is never a hit")

            var otherCache = ImageContext()
            otherCache.cache = TestCaches.make()
            #expect(try await manager.loadImage(from: url, context: otherCache).cacheType == .none)

            var memoryless = ImageContext()
            memoryless.queryCacheType = .disk
            let fromDisk = try await manager.loadImage(from: url, options: .waitStoreCache, context: memoryless)
            #expect(fromDisk.cacheType != .memory)
        }
    }
}
