import Foundation
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

/// A memory tier that keeps images in a dictionary and counts its calls: one can be
/// shared by several caches.
final class CountingMemoryTier: ImageMemoryCaching {
    private let state = InlineLocked<(images: [String: Image], gets: Int, sets: Int)>(([:], 0, 0))

    var gets: Int { state.withLock { $0.gets } }
    var sets: Int { state.withLock { $0.sets } }
    var keys: Set<String> { state.withLock { Set($0.images.keys) } }

    func image(forKey key: String) -> Image? {
        state.withLock { state in
            state.gets += 1
            return state.images[key]
        }
    }

    func setImage(_ image: Image, forKey key: String, cost: Int) {
        state.withLock { state in
            state.sets += 1
            state.images[key] = image
        }
    }

    func removeImage(forKey key: String) { _ = state.withLock { $0.images.removeValue(forKey: key) } }
    func containsImage(forKey key: String) -> Bool { state.withLock { $0.images[key] != nil } }
    func removeAllImages() { state.withLock { $0.images.removeAll() } }
}

/// A disk tier that keeps entries in a dictionary (a stand-in for a shared store) and
/// counts its reads and writes.
final class DictionaryDiskTier: ImageDiskCaching {
    private let state = InlineLocked<(entries: [String: DiskCacheEntry], reads: Int, writes: Int)>(([:], 0, 0))

    var reads: Int { state.withLock { $0.reads } }
    var writes: Int { state.withLock { $0.writes } }
    var keys: [String] { state.withLock { Array($0.entries.keys) } }

    func entrySync(forKey key: String) -> DiskCacheEntry? {
        state.withLock { state in
            state.reads += 1
            return state.entries[key]
        }
    }

    func storeSync(_ data: Data, forKey key: String, metadata: CacheMetadata) throws(ImageError) {
        var stamped = metadata
        stamped.storedDate = Date()
        state.withLock { state in
            state.writes += 1
            state.entries[key] = DiskCacheEntry(data: data, metadata: stamped, key: key)
        }
    }

    func containsSync(forKey key: String) -> Bool { state.withLock { $0.entries[key] != nil } }
    func removeSync(forKey key: String) { _ = state.withLock { $0.entries.removeValue(forKey: key) } }
    func removeAllSync() { state.withLock { $0.entries.removeAll() } }
    func totalSizeSync() -> Int { state.withLock { $0.entries.values.reduce(0) { $0 + $1.data.count } } }
    func countSync() -> Int { state.withLock { $0.entries.count } }
}

@Suite("ImageCache: one tier replaced, the other kept")
struct ImageCacheTiersTests {
    static let url = URL(string: "http://fields.test/still.jpg")!

    /// A test configuration: a fresh directory, no timer.
    static func config() -> CacheConfig {
        TestCaches.make().config
    }

    /// A manager over `cache` whose loader serves `still.jpg`.
    static func manager(_ cache: ImageCache) -> (ImageManager, RecordingLoader) {
        let loader = RecordingLoader()
        loader.serve("/still.jpg", RequestFieldHarness.still)
        return (ImageManager(cache: cache, loader: loader), loader)
    }

    @Test("a memory tier of one's own takes the images; the built-in disk tier keeps the bytes")
    func memoryTierAlone() async throws {
        let tier = CountingMemoryTier()
        let cache = ImageCache(config: Self.config(), memoryTier: tier)
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        #expect(cache.memoryCache == nil && cache.diskCache != nil)
        let (manager, loader) = Self.manager(cache)

        let first = try await manager.loadImage(from: Self.url, options: .waitStoreCache)
        #expect(first.cacheType == CacheType.none)
        #expect(tier.keys == [Self.url.absoluteString] && tier.sets == 1)
        #expect(cache.diskCache?.containsSync(forKey: Self.url.absoluteString) == true, "the bytes on the built-in disk tier")

        let getsBefore = tier.gets
        let hit = try await manager.loadImage(from: Self.url)
        #expect(hit.cacheType == .memory && hit.image?.pixelSize == first.image?.pixelSize)
        #expect(tier.gets == getsBefore + 1, "the hit was one lookup in the tier")
        #expect(loader.loads.count == 1)

        await cache.clear(.memory)
        #expect(tier.keys.isEmpty)
        let fromDisk = try await manager.loadImage(from: Self.url)
        #expect(fromDisk.cacheType == .disk && loader.loads.count == 1)
    }

    @Test("a memory tier shared by two caches: what one keeps, the other hits")
    func sharedMemoryTier() async throws {
        let tier = CountingMemoryTier()
        let first = ImageCache(config: Self.config(), memoryTier: tier)
        let second = ImageCache(config: Self.config(), memoryTier: tier)
        defer {
            try? FileManager.default.removeItem(atPath: first.config.rootDirectory)
            try? FileManager.default.removeItem(atPath: second.config.rootDirectory)
        }
        let (firstManager, _) = Self.manager(first)
        let (secondManager, secondLoader) = Self.manager(second)
        _ = try await firstManager.loadImage(from: Self.url)
        let hit = try await secondManager.loadImage(from: Self.url)
        #expect(hit.cacheType == .memory)
        #expect(secondLoader.loads.isEmpty)
    }

    @Test("a built-in memory cache given as the tier is used as the built-in one")
    func builtInMemoryCacheAsTier() {
        let memory = MemoryCache<String, Image>(totalCostLimit: 1 << 20)
        let cache = ImageCache(config: Self.config(), memoryTier: memory)
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        #expect(cache.memoryCache === memory)
        #expect(cache.memoryTier as? MemoryCache<String, Image> === memory)
    }

    @Test("a disk tier of one's own takes the bytes; the built-in memory tier keeps the images")
    func diskTierAlone() async throws {
        let disk = DictionaryDiskTier()
        let cache = ImageCache(config: Self.config(), diskTier: disk)
        #expect(cache.diskCache == nil && cache.memoryCache != nil)
        #expect(cache.cachePath(forKey: "a") == nil, "the tier keeps no files")
        let (manager, loader) = Self.manager(cache)

        _ = try await manager.loadImage(from: Self.url, options: .waitStoreCache)
        #expect(disk.writes == 1 && disk.containsSync(forKey: Self.url.absoluteString))
        #expect(cache.memoryCache?.count == 1)
        #expect(!FileManager.default.fileExists(atPath: cache.config.diskDirectory), "nothing written to the configured directory")

        cache.clearMemory()
        let fromDisk = try await manager.loadImage(from: Self.url)
        #expect(fromDisk.cacheType == .disk && fromDisk.data == RequestFieldHarness.still)
        #expect(loader.loads.count == 1)
        #expect(disk.reads >= 2, "a miss read before the load, then the hit")
        let (count, size) = (await cache.diskCount(), await cache.diskSize())
        #expect(count == 1 && size == RequestFieldHarness.still.count)
        #expect(await cache.contains(forKey: Self.url.absoluteString) == .memory)
        await cache.clear(.all)
        let contained = await cache.contains(forKey: Self.url.absoluteString)
        #expect(disk.countSync() == 0 && contained == CacheType.none)
    }
}
