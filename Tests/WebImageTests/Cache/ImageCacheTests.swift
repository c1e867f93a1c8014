import Foundation
import Testing
@testable import WebImage

@Suite("Image cache")
struct ImageCacheTests {
    @Test func C1_memoryStoreIsSynchronousDiskStoreVisibleAfterCompletion() async throws {
        try await withTemporaryDirectory { directory in
            let cache = ImageCache(config: testConfig(directory))
            let (image, png) = try makePNG()
            cache.storeToMemory(image, forKey: "sync")
            // Visible at once, without any suspension in between.
            #expect(cache.imageFromMemory(forKey: "sync")?.pixelSize == image.pixelSize)
            #expect(cache.diskCache?.containsSync(forKey: "sync") == false)

            #expect(cache.diskCache?.containsSync(forKey: "both") == false)
            try await cache.store(image, data: png, forKey: "both")
            // The disk entry exists once the store has completed.
            #expect(cache.diskCache?.dataSync(forKey: "both") == png)
            #expect(cache.imageFromMemory(forKey: "both") != nil)

            // Memory-only and disk-only stores keep to their cache.
            try await cache.store(image, data: png, forKey: "memory-only", cacheType: .memory)
            #expect(cache.imageFromMemory(forKey: "memory-only") != nil)
            #expect(await cache.diskData(forKey: "memory-only") == nil)
            try await cache.store(image, data: png, forKey: "disk-only", cacheType: .disk)
            #expect(cache.imageFromMemory(forKey: "disk-only") == nil)
            #expect(await cache.diskData(forKey: "disk-only") == png)
        }
    }

    @Test func C2_queryRemoveClearContainsSizeCount() async throws {
        try await withTemporaryDirectory { directory in
            let cache = ImageCache(config: testConfig(directory))
            let (image, png) = try makePNG()
            #expect(await cache.query(forKey: "k") == nil)
            #expect(await cache.contains(forKey: "k") == CacheType.none)
            try await cache.store(image, data: png, forKey: "k", metadata: CacheMetadata(etag: "e1"))
            #expect(await cache.contains(forKey: "k") == .memory)
            #expect(await cache.query(forKey: "k")?.cacheType == .memory)
            #expect(await cache.query(forKey: "k")?.data == nil)

            cache.clearMemory()
            #expect(cache.imageFromMemory(forKey: "k") == nil)
            #expect(await cache.contains(forKey: "k") == .disk)
            // A memory-only query misses what is only on disk.
            #expect(await cache.query(forKey: "k", cacheType: .memory) == nil)
            // A disk-only query decodes without filling memory.
            let diskOnly = try #require(await cache.query(forKey: "k", cacheType: .disk))
            #expect(diskOnly.cacheType == .disk)
            #expect(cache.imageFromMemory(forKey: "k") == nil)
            // A full query decodes the disk hit and puts it in memory.
            let hit = try #require(await cache.query(forKey: "k"))
            #expect(hit.cacheType == .disk)
            #expect(hit.data == png)
            #expect(hit.metadata?.etag == "e1")
            #expect(hit.image.pixelSize == image.pixelSize)
            #expect(try hit.image.pixel(x: 5, y: 5) == image.pixel(x: 5, y: 5))
            #expect(cache.imageFromMemory(forKey: "k") != nil)
            #expect(await cache.query(forKey: "k")?.cacheType == .memory)
            #expect(await cache.query(forKey: "k", cacheType: CacheType.none) == nil)
            #expect(await cache.metadata(forKey: "k")?.etag == "e1")

            try await cache.store(image, data: png, forKey: "k2")
            #expect(await cache.diskCount() == 2)
            #expect(await cache.diskSize() > 2 * png.count)

            await cache.remove(forKey: "k", cacheType: .memory)
            #expect(await cache.contains(forKey: "k") == .disk)
            await cache.remove(forKey: "k", cacheType: .disk)
            #expect(await cache.contains(forKey: "k") == CacheType.none)
            await cache.remove(forKey: "k2")
            #expect(await cache.contains(forKey: "k2") == CacheType.none)
            #expect(await cache.diskCount() == 0)

            try await cache.store(image, data: png, forKey: "k3")
            await cache.clearDisk()
            #expect(await cache.diskCount() == 0)
            #expect(await cache.diskSize() == 0)
            #expect(await cache.contains(forKey: "k3") == .memory)
        }
    }

    @Test func C9_imageCacheUnderConcurrentStoresAndQueries() async throws {
        try await withTemporaryDirectory { directory in
            let cache = ImageCache(config: testConfig(directory))
            // Two versions whose sizes tell them apart.
            let versions = try [makePNG(width: 16, height: 8), makePNG(width: 8, height: 16)]
            let keys = ["a", "b", "c"]
            let mismatches = await withTaskGroup(of: Int.self) { group in
                for task in 0..<8 {
                    group.addTask {
                        var mismatches = 0
                        for step in 0..<30 {
                            let key = keys[(task + step) % keys.count]
                            switch (task + step) % 4 {
                            case 0:
                                let version = versions[(task * 7 + step) % 2]
                                try? await cache.store(version.image, data: version.data, forKey: key)
                            case 1:
                                cache.clearMemory()
                            default:
                                guard let result = await cache.query(forKey: key) else { continue }
                                let size = result.image.pixelSize
                                if size != versions[0].image.pixelSize && size != versions[1].image.pixelSize { mismatches += 1 }
                                if let data = result.data, (try? VipsCoder.shared.decode(data))?.pixelSize != size { mismatches += 1 }
                            }
                        }
                        return mismatches
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(mismatches == 0)
        }
    }

    @Test func undecodableDiskDataIsRemoved() async throws {
        try await withTemporaryDirectory { directory in
            let cache = ImageCache(config: testConfig(directory))
            try await cache.diskCache?.store(Data("<html>not an image</html>".utf8), forKey: "bad")
            #expect(await cache.query(forKey: "bad") == nil)
            #expect(await cache.diskData(forKey: "bad") == nil)
            #expect(!FileManager.default.fileExists(atPath: try #require(cache.cachePath(forKey: "bad"))))
        }
    }

    @Test func imageWithoutDataIsEncodedForDisk() async throws {
        try await withTemporaryDirectory { directory in
            let cache = ImageCache(config: testConfig(directory))
            let (image, _) = try makePNG()
            try await cache.store(image, data: nil, forKey: "encoded", cacheType: .disk)
            let data = try #require(await cache.diskData(forKey: "encoded"))
            // Made from pixels, the image has no format of its own and no alpha: JPEG.
            #expect(ImageFormat(data: data) == .jpeg)
            #expect(await cache.query(forKey: "encoded")?.image.pixelSize == image.pixelSize)
        }
    }

    @Test func memoryCachingCanBeTurnedOff() async throws {
        try await withTemporaryDirectory { directory in
            var config = testConfig(directory)
            config.shouldCacheImagesInMemory = false
            let cache = ImageCache(config: config)
            let (image, png) = try makePNG()
            try await cache.store(image, data: png, forKey: "k")
            #expect(cache.imageFromMemory(forKey: "k") == nil)
            #expect(await cache.query(forKey: "k")?.cacheType == .disk)
            #expect(cache.imageFromMemory(forKey: "k") == nil)
        }
    }

    @Test func defaultConfiguration() {
        let config = CacheConfig()
        #expect(config.maxDiskAge == 7 * 24 * 3600)
        #expect(config.maxDiskSize == 0)
        #expect(config.maxMemoryCost > 0 && config.maxMemoryCost <= 1 << 30)
        #expect(config.namespace == "default")
        #expect(config.rootDirectory.hasSuffix("/webimage"))
        #expect(config.diskDirectory == config.rootDirectory + "/default")
        #expect(config.autoCleanInterval == .seconds(3600))
    }
}
