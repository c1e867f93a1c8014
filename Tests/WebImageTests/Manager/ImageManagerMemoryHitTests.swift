import Foundation
import Testing
@testable import WebImage
import WebImageLocking
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

    @Test("a memory hit reads the cache's own tier, a MemoryCache handed in, or a tier of the caller's, on both call forms")
    func memoryHitReadsWhicheverTierTheCacheHas() async throws {
        let url = URL(string: "https://example.invalid/hit.png")!
        let image = try TestImages.quadrants(width: 8, height: 8)
        let counting = CountingMemoryTier()
        let handedIn = MemoryCache<String, Image>(totalCostLimit: 0, countLimit: 0)
        for tier in [nil, handedIn as any ImageMemoryCaching, counting] {
            var config = CacheConfig()
            config.rootDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-test-\(UUID().uuidString)").path
            config.autoCleanInterval = nil
            let cache = ImageCache(config: config, memoryTier: tier)
            defer { try? FileManager.default.removeItem(atPath: config.rootDirectory) }
            // A loader that fails: an answer other than a memory hit fails the test.
            let manager = ImageManager(cache: cache, loader: ImageLoaders([]))
            cache.storeToMemory(image, forKey: url.absoluteString)
            #expect(try await manager.loadImage(from: url).cacheType == .memory)
            let delivered = Locked<CacheType?>(nil)
            _ = manager.loadImage(with: url) { result in delivered.withLock { $0 = try? result.get().cacheType } }
            #expect(delivered.withLock { $0 } == .memory)
        }
        #expect(counting.gets == 2, "both hits went through the caller's tier")
        #expect(handedIn.value(forKey: url.absoluteString) != nil, "the MemoryCache handed in is the cache's tier")
    }
}
