import Foundation
import VersionedPayload
import Glibc
import Testing
@testable import WebImage
import WebImageTestSupport

// Entries that are damaged, written concurrently or carried across restarts, and the
// temporary files and removals around them.
extension DiskCacheTests {
    @Test func C8_truncatedOrGarbledFileIsMissAndRemoved() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            let payload = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) })
            try await cache.store(payload, forKey: "k", metadata: CacheMetadata(etag: "e"))
            let path = cache.cachePath(forKey: "k")
            let original = try Data(contentsOf: URL(fileURLWithPath: path))
            var damaged: [(String, Data)] = [
                ("empty", Data()),
                ("image only", original.prefix(payload.count)),
                ("missing last byte", original.dropLast()),
                ("half", original.prefix(original.count / 2)),
                ("extra byte", original + Data([0])),
                ("plain file", Data("not an entry".utf8)),
            ]
            for offset in [0, 100, payload.count - 1, payload.count + 3, original.count - 20, original.count - 12, original.count - 1] {
                var garbled = original
                garbled[offset] ^= 0x01
                damaged.append(("bit flip at \(offset)", garbled))
            }
            for (name, bytes) in damaged {
                try bytes.write(to: URL(fileURLWithPath: path))
                #expect(await cache.data(forKey: "k") == nil, "\(name)")
                #expect(!FileManager.default.fileExists(atPath: path), "\(name) should be removed")
            }
            // The intact bytes still read back.
            try original.write(to: URL(fileURLWithPath: path))
            #expect(await cache.data(forKey: "k") == payload)
        }
    }

    @Test func C8_entryGarbledInPlaceAfterBeingReadIsStillCaught() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            let payload = Data(repeating: 42, count: 4096)
            try await cache.store(payload, forKey: "k")
            // Read twice: the second read relies on the first one's verification.
            #expect(await cache.data(forKey: "k") == payload)
            #expect(await cache.data(forKey: "k") == payload)
            // Older kernels stamp changes at clock-tick resolution; let one tick pass.
            try await Task.sleep(for: .milliseconds(20))
            // Same size, same inode, one byte changed in place.
            let path = cache.cachePath(forKey: "k")
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            try handle.seek(toOffset: 100)
            try handle.write(contentsOf: Data([43]))
            try handle.close()
            #expect(await cache.data(forKey: "k") == nil)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func C9_concurrentReadersAndWritersSeeCompleteVersions() async {
        await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            let keys = Array(VersionedPayload.keys.prefix(3))
            let results = await withTaskGroup(of: (reads: Int, hits: Int, torn: Int).self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for step in 0..<40 {
                            let generation = step * 4 + writer
                            let key = keys[(step + writer) % keys.count]
                            let data = VersionedPayload.data(key: key, generation: generation)
                            if step % 2 == 0 {
                                try? await cache.store(data, forKey: key, metadata: CacheMetadata(etag: "\(generation)"))
                            } else {
                                try? cache.storeSync(data, forKey: key, metadata: CacheMetadata(etag: "\(generation)"))
                            }
                            if step % 10 == 9 { await cache.remove(forKey: key) }
                        }
                        return (0, 0, 0)
                    }
                }
                for reader in 0..<6 {
                    group.addTask {
                        var hits = 0
                        var torn = 0
                        for step in 0..<80 {
                            let key = keys[(step + reader) % keys.count]
                            if reader % 2 == 0 {
                                if let entry = await cache.entry(forKey: key) {
                                    hits += 1
                                    let generation = VersionedPayload.verifiedGeneration(of: entry.data, key: key)
                                    if generation == nil || entry.metadata.etag != generation.map(String.init) { torn += 1 }
                                }
                            } else if let data = cache.dataSync(forKey: key) {
                                hits += 1
                                if VersionedPayload.verifiedGeneration(of: data, key: key) == nil { torn += 1 }
                            }
                        }
                        return (80, hits, torn)
                    }
                }
                var total = (reads: 0, hits: 0, torn: 0)
                for await result in group {
                    total.reads += result.reads
                    total.hits += result.hits
                    total.torn += result.torn
                }
                return total
            }
            #expect(results.reads == 480)
            #expect(results.torn == 0)
            #expect(results.hits > 0)
        }
    }

    @Test func C10_validatorsSurviveRestart() async throws {
        try await withTemporaryDirectory { directory in
            let expiry = Date(timeIntervalSince1970: 2_000_000_000.5)
            let before = Date()
            let metadata = CacheMetadata(etag: "\"abc123\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", expirationDate: expiry)
            do {
                let cache = DiskCache(config: testConfig(directory))
                try await cache.store(Data("image".utf8), forKey: "http://h/a.jpg", metadata: metadata)
            }
            let reopened = DiskCache(config: testConfig(directory))
            let entry = try #require(await reopened.entry(forKey: "http://h/a.jpg"))
            #expect(entry.data == Data("image".utf8))
            #expect(entry.key == "http://h/a.jpg")
            #expect(entry.metadata.etag == "\"abc123\"")
            #expect(entry.metadata.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")
            #expect(entry.metadata.expirationDate == expiry)
            // Between the test's own clock readings (a second either side for the stored
            // precision), however long a loaded machine takes to get here.
            let after = Date()
            #expect(entry.metadata.storedDate >= before.addingTimeInterval(-1))
            #expect(entry.metadata.storedDate <= after.addingTimeInterval(1))
            #expect(await reopened.metadata(forKey: "http://h/a.jpg")?.etag == "\"abc123\"")
            #expect(await reopened.keys() == ["http://h/a.jpg"])
        }
    }

    @Test("C10 every metadata field survives a restart, those of a variant's source included")
    func C10_everyFieldSurvivesRestart() async throws {
        try await withTemporaryDirectory { directory in
            let metadata = CacheMetadata(
                etag: "\"v\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", expirationDate: Date(timeIntervalSince1970: 2_000_000_000),
                storedDate: Date(timeIntervalSince1970: 1_900_000_000), sourceURL: URL(string: "https://h/a.jpg"),
                pixelSize: PixelSize(width: 40, height: 30), sourceETag: "\"s\"", sourceLastModified: "Thu, 22 Oct 2015 07:28:00 GMT",
                encodeQuality: 81, similarityScore: 0.987, cacheControl: "public, max-age=60", expires: "Fri, 23 Oct 2015 07:28:00 GMT",
                sourceCacheControl: "max-age=5", sourceExpires: "Sat, 24 Oct 2015 07:28:00 GMT",
                sourcePixelSize: PixelSize(width: 4000, height: 3000), sourceByteCount: 5_000_000_000
            )
            do {
                let cache = DiskCache(config: testConfig(directory))
                try await cache.store(Data("image".utf8), forKey: "k", metadata: metadata)
            }
            let entry = try #require(await DiskCache(config: testConfig(directory)).entry(forKey: "k"))
            var expected = metadata
            expected.storedDate = entry.metadata.storedDate  // the time of the write
            #expect(entry.metadata == expected)
        }
    }

    @Test func metadataUpdateKeepsTheBytes() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            try await cache.store(Data("bytes".utf8), forKey: "k", metadata: CacheMetadata(etag: "v1"))
            var metadata = try #require(await cache.metadata(forKey: "k"))
            #expect(metadata.etag == "v1")
            metadata.etag = "v2"
            metadata.expirationDate = Date(timeIntervalSince1970: 1_900_000_000)
            metadata.storedDate = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(try await cache.updateMetadata(metadata, forKey: "k"))
            let entry = try #require(await cache.entry(forKey: "k"))
            #expect(entry.data == Data("bytes".utf8))
            #expect(entry.metadata == metadata)
            #expect(try await cache.updateMetadata(metadata, forKey: "missing") == false)
            #expect(await cache.count() == 1)
        }
    }

    @Test func cleanRemovesStaleTemporaryFiles() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            try await cache.store(Data([1]), forKey: "k")
            let name = CacheKey.fileName(forKey: "k")
            let stale = directory + "/test/." + name + ".999-1.tmp"
            let fresh = directory + "/test/." + name + ".999-2.tmp"
            try Data([1, 2]).write(to: URL(fileURLWithPath: stale))
            try Data([3, 4]).write(to: URL(fileURLWithPath: fresh))
            let old = Date().addingTimeInterval(-3600)
            setFileTimes(stale, accessed: old, modified: old)
            // An hour ahead, the fresh file stays within the grace period however long a
            // loaded machine takes to reach the clean.
            let ahead = Date().addingTimeInterval(3600)
            setFileTimes(fresh, accessed: ahead, modified: ahead)
            // Temporary files are not entries.
            #expect(await cache.count() == 1)
            let result = await cache.clean()
            #expect(result.temporaryFilesRemoved == 1)
            // A fresh one may belong to a write in flight and stays.
            #expect(fileNames(in: directory + "/test") == ["." + name + ".999-2.tmp", name].sorted())
            #expect(await cache.data(forKey: "k") == Data([1]))
        }
    }

    @Test func entryFileStillOpensAsAnImage() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            let (image, png) = try makePNG()
            try await cache.store(png, forKey: "http://h/i.png")
            // The image bytes come first, so the cache file decodes as the image itself.
            let file = try Data(contentsOf: URL(fileURLWithPath: cache.cachePath(forKey: "http://h/i.png")))
            #expect(file.count > png.count)
            #expect(file.prefix(png.count) == png)
            #expect(try VipsCoder.shared.decode(file).pixelSize == image.pixelSize)
        }
    }

    @Test func C2_diskRemoveClearSizeCount() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            #expect(await cache.count() == 0)
            #expect(await cache.totalSize() == 0)
            for index in 0..<5 { try cache.storeSync(Data(count: 100), forKey: "k\(index)") }
            #expect(await cache.count() == 5)
            let entrySize = try #require(DiskFiles.status(path: cache.cachePath(forKey: "k0"))).size
            #expect(entrySize > 100)
            #expect(await cache.totalSize() == 5 * entrySize)
            #expect(cache.containsSync(forKey: "k1"))
            cache.removeSync(forKey: "k1")
            #expect(!cache.containsSync(forKey: "k1"))
            #expect(await cache.count() == 4)
            await cache.removeAll()
            #expect(await cache.count() == 0)
            #expect(await cache.data(forKey: "k2") == nil)
        }
    }
}
