import Foundation
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

/// ``ImageCachesManager`` and caches of one's own behind ``ImageCaching``: SDWebImage's
/// `SDImageCachesManager` (public repository SDWebImage/SDWebImage,
/// `Tests/Tests/SDImageCacheTests.m`, test55–test58: policies, priority order, a custom cache).
@Suite("Caches manager")
struct ImageCachesManagerTests {
    /// A fast local cache (memory and disk) in front of a slower shared directory (disk
    /// only), both under `directory`.
    static func chain(_ directory: String) -> (local: ImageCache, shared: ImageCache, manager: ImageCachesManager) {
        let local = ImageCache(config: testConfig(directory, namespace: "local"))
        var sharedConfig = testConfig(directory, namespace: "shared")
        sharedConfig.shouldCacheImagesInMemory = false
        let shared = ImageCache(config: sharedConfig)
        return (local, shared, ImageCachesManager(caches: [shared, local]))
    }

    @Test("a miss in the local cache is answered by the shared one and fills the local one")
    func chainFillsLocalFromShared() async throws {
        try await withTemporaryDirectory { directory in
            let (local, shared, caches) = Self.chain(directory)
            let (_, png) = try makePNG()
            try await shared.store(nil, data: png, forKey: "k", metadata: CacheMetadata(etag: "\"e\""), cacheType: .disk)

            let hit = try #require(await caches.query(forKey: "k", cacheType: .all, decodeOptions: ImageDecodeOptions()))
            #expect(hit.cacheType == .disk)
            #expect(await local.diskData(forKey: "k") == png)
            #expect(await local.metadata(forKey: "k")?.etag == "\"e\"")
            #expect(local.imageFromMemory(forKey: "k") != nil)
            #expect(shared.imageFromMemory(forKey: "k") == nil)

            // The next lookup stops at the local cache: the shared one can go.
            await shared.clear(.all)
            #expect(await caches.query(forKey: "k", cacheType: .all, decodeOptions: ImageDecodeOptions())?.cacheType == .memory)
            local.clearMemory()
            #expect(await caches.entry(forKey: "k")?.data == png)
        }
    }

    @Test("filling can be turned off, and entry lookups fill too")
    func fillingIsAPolicy() async throws {
        try await withTemporaryDirectory { directory in
            let (local, shared, caches) = Self.chain(directory)
            let (_, png) = try makePNG()
            try await shared.store(nil, data: png, forKey: "k", cacheType: .disk)
            caches.fillsHigherCachesOnHit = false
            #expect(await caches.entry(forKey: "k")?.data == png)
            #expect(await local.diskData(forKey: "k") == nil)
            caches.fillsHigherCachesOnHit = true
            #expect(await caches.entry(forKey: "k")?.data == png)
            #expect(await local.diskData(forKey: "k") == png)
        }
    }

    @Test("the chain is its own two tiers: sizes and counts add up over the caches, a variant in a lower cache's memory fills the higher one")
    func chainIsItsTiers() async throws {
        try await withTemporaryDirectory { directory in
            let (local, shared, caches) = Self.chain(directory)
            try await shared.store(nil, data: Data("shared".utf8), forKey: "a", cacheType: .disk)
            try await local.store(nil, data: Data("local!".utf8), forKey: "b", cacheType: .disk)
            #expect(await caches.diskCount() == 2 && caches.diskTier.countSync() == 2)
            #expect(await caches.diskSize() == (await shared.diskSize()) + (await local.diskSize()))
            #expect(caches.cachePath(forKey: "b") == local.cachePath(forKey: "b"))

            let variant = EncodedVariant(data: Data("v".utf8), pixelSize: PixelSize(width: 1, height: 1))
            shared.variantMemoryCache.setValue(variant, forKey: "v", cost: 1)
            #expect(caches.variantFromMemory(forKey: "v") != nil && local.variantFromMemory(forKey: "v") != nil)
            #expect(await caches.contains(forKey: "v") == .memory)
            await caches.remove(forKey: "v", cacheType: .memory)
            #expect(shared.variantFromMemory(forKey: "v") == nil && local.variantFromMemory(forKey: "v") == nil)
        }
    }

    // SDImageCachesManager's defaults: store highest only, remove and clear everywhere,
    // contains serial (test57: the serial contains of [cache1, cache2] asks cache2 first).
    @Test("default policies: store to the highest cache, remove and clear everywhere, contains asks in turn")
    func defaultPolicies() async throws {
        try await withTemporaryDirectory { directory in
            let (local, shared, caches) = Self.chain(directory)
            let (image, png) = try makePNG()
            try await caches.store(image, data: png, forKey: "a", metadata: CacheMetadata(), cacheType: .all)
            #expect(await local.diskData(forKey: "a") == png)
            #expect(await shared.diskData(forKey: "a") == nil)
            #expect(await caches.contains(forKey: "a") == .memory)

            try await shared.store(nil, data: png, forKey: "b", cacheType: .disk)
            #expect(await caches.contains(forKey: "b") == .disk)
            #expect(await caches.contains(forKey: "none") == CacheType.none)

            try await local.store(nil, data: png, forKey: "b", cacheType: .disk)
            await caches.remove(forKey: "b", cacheType: .all)
            #expect(await local.diskData(forKey: "b") == nil)
            #expect(await shared.diskData(forKey: "b") == nil)

            try await shared.store(nil, data: png, forKey: "c", cacheType: .disk)
            await caches.clear(.all)
            #expect(await local.diskCount() == 0)
            #expect(await shared.diskCount() == 0)
        }
    }

    // test55SDImageCachesManagerOperationPolicySimple, test56…Concurrent
    @Test("policies: serial stores everywhere, lowestOnly and highestOnly pick one cache, concurrent lookups prefer the higher cache")
    func otherPolicies() async throws {
        try await withTemporaryDirectory { directory in
            let (local, shared, caches) = Self.chain(directory)
            let (image, png) = try makePNG()
            caches.storePolicy = .serial
            try await caches.store(image, data: png, forKey: "s", metadata: CacheMetadata(), cacheType: .disk)
            #expect(await local.diskData(forKey: "s") == png)
            #expect(await shared.diskData(forKey: "s") == png)

            caches.storePolicy = .lowestOnly
            try await caches.store(image, data: png, forKey: "l", metadata: CacheMetadata(), cacheType: .disk)
            #expect(await local.diskData(forKey: "l") == nil)
            #expect(await shared.diskData(forKey: "l") == png)

            caches.queryPolicy = .highestOnly
            #expect(await caches.entry(forKey: "l") == nil)
            caches.queryPolicy = .lowestOnly
            #expect(await caches.entry(forKey: "l")?.data == png)

            // Both hold "x" with different metadata: a concurrent lookup answers with the higher.
            try await local.store(nil, data: png, forKey: "x", metadata: CacheMetadata(etag: "local"), cacheType: .disk)
            try await shared.store(nil, data: png, forKey: "x", metadata: CacheMetadata(etag: "shared"), cacheType: .disk)
            caches.queryPolicy = .concurrent
            #expect(await caches.entry(forKey: "x")?.metadata.etag == "local")

            caches.removePolicy = .highestOnly
            await caches.remove(forKey: "x", cacheType: .all)
            #expect(await local.diskData(forKey: "x") == nil)
            #expect(await shared.diskData(forKey: "x") != nil)
        }
    }

    @Test("addCache puts a cache in front; removeCache takes it out")
    func addAndRemove() async {
        await withTemporaryDirectory { directory in
            let (local, shared, _) = Self.chain(directory)
            let caches = ImageCachesManager()
            #expect(caches.imageFromMemory(forKey: "k") == nil)
            #expect(await caches.entry(forKey: "k") == nil)
            caches.addCache(shared)
            caches.addCache(local)
            #expect(caches.caches.count == 2)
            let highest = caches.caches.last as? ImageCache
            #expect(highest === local, "the last added has the highest priority")
            caches.removeCache(local)
            #expect(caches.caches.count == 1)
            let remaining = caches.caches.first as? ImageCache
            #expect(remaining === shared)
        }
    }

    @Test("the manager over a chain: the original from the shared directory, no download, the local cache filled")
    func managerOverChain() async throws {
        try await withTemporaryDirectory { directory in
            let (local, shared, caches) = Self.chain(directory)
            try await withOriginAndDownloader { origin, downloader in
                let (_, png) = try makePNG()
                origin.register("/a.png", .image(png))
                let url = origin.url("/a.png")
                try await shared.store(nil, data: png, forKey: url.absoluteString, cacheType: .disk)
                let manager = ImageManager(cache: caches, loader: ImageLoaders([downloader]))
                let result = try await manager.loadImage(from: url)
                #expect(result.cacheType == .disk)
                #expect(origin.totalRequestCount == 0)
                #expect(await local.diskData(forKey: url.absoluteString) == png)

                // A download lands in the local cache only (store policy: highest only).
                origin.register("/b.png", .image(png))
                _ = try await manager.loadImage(from: origin.url("/b.png"), options: .waitStoreCache)
                #expect(await local.diskData(forKey: origin.url("/b.png").absoluteString) == png)
                #expect(await shared.diskData(forKey: origin.url("/b.png").absoluteString) == nil)
            }
        }
    }

    // test58CustomImageCache
    @Test("a cache of one's own behind ImageCaching serves the manager")
    func customCache() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let (_, png) = try makePNG()
            origin.register("/c.png", .image(png))
            let cache = DictionaryCache()
            let manager = ImageManager(cache: cache, loader: ImageLoaders([downloader]))
            let url = origin.url("/c.png")
            let first = try await manager.loadImage(from: url, options: .waitStoreCache)
            #expect(first.cacheType == CacheType.none)
            #expect(cache.storedKeys == [url.absoluteString])
            #expect(try await manager.loadImage(from: url).cacheType == .memory)
            await cache.clear(.memory)
            let fromBytes = try await manager.loadImage(from: url)
            #expect(fromBytes.cacheType == .disk)
            #expect(fromBytes.data == png)
            #expect(origin.requestCount("/c.png") == 1)
        }
    }
}

/// The smallest cache of one's own: its two tiers, images and entries each in a dictionary.
final class DictionaryCache: ImageCaching {
    let memoryTier: any ImageMemoryCaching = CountingMemoryTier()
    private let entries = DictionaryDiskTier()

    var diskTier: any ImageDiskCaching { entries }
    var storedKeys: [String] { entries.keys.sorted() }
}
