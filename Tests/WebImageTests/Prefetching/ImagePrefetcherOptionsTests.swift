import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImagePrefetcher: options and context per prefetch")
struct ImagePrefetcherOptionsTests {
    static let box = PixelSize(width: 16, height: 16)

    /// A prefetcher over a manager whose loader serves `still.jpg` from memory.
    static func prefetcher() -> (ImagePrefetcher, RecordingLoader, ImageCache) {
        let loader = RecordingLoader()
        loader.serve("/still.jpg", RequestFieldHarness.still)
        let cache = TestCaches.make()
        let manager = ImageManager(cache: cache, loader: loader)
        return (ImagePrefetcher(manager: manager), loader, cache)
    }

    static let url = URL(string: "http://fields.test/still.jpg")!

    @Test("a prefetch with its own context caches what that context makes, not what the prefetcher's would")
    func ownContext() async throws {
        let (prefetcher, loader, cache) = Self.prefetcher()
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        var context = ImageContext()
        context.thumbnailPixelSize = Self.box
        let result = await prefetcher.prefetch([Self.url], options: [.retryFailed], context: context)
        #expect(result == PrefetchResult(finishedCount: 1, skippedCount: 0, totalCount: 1))
        let thumbnailKey = try #require(prefetcher.manager.cacheKey(for: Self.url, context: context))
        #expect(thumbnailKey != Self.url.absoluteString)
        #expect(cache.imageFromMemory(forKey: thumbnailKey)?.pixelSize == PixelSize(width: 16, height: 12))
        #expect(cache.imageFromMemory(forKey: Self.url.absoluteString) == nil, "the prefetcher's own context makes the full image")
        #expect(loader.lastOptions?.priority == .low, "low priority is still added")

        // The prefetcher's own form is unchanged: the full-size image.
        _ = await prefetcher.prefetch([Self.url])
        #expect(cache.imageFromMemory(forKey: Self.url.absoluteString)?.pixelSize == PixelSize(width: 64, height: 48))
    }

    @Test("the token carries the prefetch's options and context; high priority wins over the low priority added")
    func tokenOptions() async throws {
        let (prefetcher, loader, cache) = Self.prefetcher()
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        var context = ImageContext()
        context.storeCacheType = .memory
        let done = Recorder<PrefetchResult>()
        let token = prefetcher.prefetch([Self.url], options: .highPriority, context: context, progress: nil) { done.append($0) }
        #expect(token.options == [.highPriority, .lowPriority])
        #expect(token.context?.storeCacheType == .memory)
        #expect(await done.wait(for: 1))
        #expect(loader.lastOptions?.priority == .high)
        #expect(await cache.diskCount() == 0, "the prefetch's context kept it in memory only")
        #expect(cache.imageFromMemory(forKey: Self.url.absoluteString) != nil)
    }

    @Test("prefetches of one URL with different contexts each get their own result")
    func differentContextsDoNotShare() async throws {
        let (prefetcher, loader, cache) = Self.prefetcher()
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        loader.closeGate()
        var small = ImageContext()
        small.thumbnailPixelSize = PixelSize(width: 8, height: 8)
        var large = ImageContext()
        large.thumbnailPixelSize = PixelSize(width: 32, height: 32)
        let done = Recorder<PrefetchResult>()
        prefetcher.prefetch([Self.url], options: [], context: small, progress: nil) { done.append($0) }
        prefetcher.prefetch([Self.url], options: [], context: large, progress: nil) { done.append($0) }
        loader.openGate()
        #expect(await done.wait(for: 2))
        for context in [small, large] {
            let key = try #require(prefetcher.manager.cacheKey(for: Self.url, context: context))
            #expect(cache.imageFromMemory(forKey: key)?.pixelSize.width == context.thumbnailPixelSize?.width, "\(key)")
        }
    }
}
