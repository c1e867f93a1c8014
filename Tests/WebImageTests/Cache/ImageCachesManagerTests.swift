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

/// The smallest cache of one's own: two dictionaries. Bytes are decoded with the shared coder.
final class DictionaryCache: ImageCaching {
    private let images = InlineLocked<[String: Image]>([:])
    private let entries = InlineLocked<[String: DiskCacheEntry]>([:])

    var storedKeys: [String] { entries.withLock { $0.keys.sorted() } }

    func imageFromMemory(forKey key: String) -> Image? { images.withLock { $0[key] } }
    func storeToMemory(_ image: Image, forKey key: String) { images.withLock { $0[key] = image } }

    func query(forKey key: String, cacheType: CacheType, decodeOptions: ImageDecodeOptions) async -> CacheQueryResult? {
        if cacheType.includesMemory, let image = imageFromMemory(forKey: key) {
            return CacheQueryResult(image: image, data: nil, cacheType: .memory)
        }
        guard cacheType.includesDisk, let entry = entrySync(forKey: key),
              let image = try? VipsCoder.shared.decode(entry.data, options: decodeOptions)
        else { return nil }
        return CacheQueryResult(image: image, data: entry.data, cacheType: .disk, metadata: entry.metadata)
    }

    func entry(forKey key: String) async -> DiskCacheEntry? { entrySync(forKey: key) }
    func entrySync(forKey key: String) -> DiskCacheEntry? { entries.withLock { $0[key] } }

    func store(_ image: Image?, data: Data?, forKey key: String, metadata: CacheMetadata, cacheType: CacheType) async throws(ImageError) {
        if cacheType.includesMemory, let image { storeToMemory(image, forKey: key) }
        guard cacheType.includesDisk else { return }
        let bytes: Data
        if let data {
            bytes = data
        } else if let image {
            bytes = try VipsCoder.shared.encode(image, options: ImageEncodeOptions(format: ImageCache.diskFormat(for: image)))
        } else {
            return
        }
        entries.withLock { $0[key] = DiskCacheEntry(data: bytes, metadata: metadata, key: key) }
    }

    func remove(forKey key: String, cacheType: CacheType) async {
        if cacheType.includesMemory { _ = images.withLock { $0.removeValue(forKey: key) } }
        if cacheType.includesDisk { _ = entries.withLock { $0.removeValue(forKey: key) } }
    }

    func clear(_ cacheType: CacheType) async {
        if cacheType.includesMemory { images.withLock { $0.removeAll() } }
        if cacheType.includesDisk { entries.withLock { $0.removeAll() } }
    }

    func contains(forKey key: String) async -> CacheType {
        if imageFromMemory(forKey: key) != nil { return .memory }
        return entrySync(forKey: key) != nil ? .disk : .none
    }

    func diskData(forKey key: String) async -> Data? { entrySync(forKey: key)?.data }
    func metadata(forKey key: String) async -> CacheMetadata? { entrySync(forKey: key)?.metadata }
}
