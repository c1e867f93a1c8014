import Foundation
import VersionedPayload
import Glibc
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Disk cache")
struct DiskCacheTests {
    @Test("HT4 a disk entry of another format version is a miss, and is not deleted; the trim still counts it")
    func HT4_otherFormatVersionIsAMissAndStays() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            try cache.storeSync(Data("other".utf8), forKey: "other")
            try cache.storeSync(Data("ours".utf8), forKey: "ours")
            let path = cache.cachePath(forKey: "other")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            // The footer's format version, as another build would write it.
            let versionOffset = bytes.count - DiskEntryFormat.footerSize + 12
            bytes.replaceSubrange(versionOffset..<versionOffset + 2, with: [2, 0])
            try bytes.write(to: URL(fileURLWithPath: path))
            let size = bytes.count
            for reader in [cache, DiskCache(config: testConfig(directory))] {
                #expect(reader.entrySync(forKey: "other") == nil)
                #expect(await reader.data(forKey: "other") == nil)
                #expect(FileManager.default.fileExists(atPath: path), "left for the build that wrote it")
                #expect(reader.entrySync(forKey: "ours")?.data == Data("ours".utf8))
            }
            #expect(cache.countSync() == 2 && cache.totalSizeSync() >= size)
            try cache.storeSync(Data("again".utf8), forKey: "other")
            #expect(cache.entrySync(forKey: "other")?.data == Data("again".utf8), "this build's own write replaces it")
        }
    }

    @Test func C5_expiryByAccessDate() async throws {
        try await withTemporaryDirectory { directory in
            var config = testConfig(directory)
            config.diskExpireType = .accessDate
            config.maxDiskAge = 7 * 24 * 3600
            let cache = DiskCache(config: config)
            let old = Date().addingTimeInterval(-14 * 24 * 3600)
            for key in ["read", "unread", "recent"] {
                try await cache.store(Data(key.utf8), forKey: key)
            }
            setFileTimes(cache.cachePath(forKey: "read"), accessed: old, modified: old)
            setFileTimes(cache.cachePath(forKey: "unread"), accessed: old, modified: old)
            // Reading refreshes the access time, which is what ages an entry here.
            #expect(await cache.data(forKey: "read") == Data("read".utf8))
            let times = try #require(fileTimes(cache.cachePath(forKey: "read")))
            #expect(times.accessed > Date().timeIntervalSince1970 - 60)
            #expect(times.modified < Date().timeIntervalSince1970 - 13 * 24 * 3600)
            let result = await cache.clean()
            #expect(result.expiredCount == 1)
            #expect(await cache.data(forKey: "read") != nil)
            #expect(await cache.data(forKey: "unread") == nil)
            #expect(await cache.data(forKey: "recent") != nil)
        }
    }

    @Test func C5_expiryByModificationDate() async throws {
        try await withTemporaryDirectory { directory in
            var config = testConfig(directory)
            config.diskExpireType = .modificationDate
            config.maxDiskAge = 3600
            let cache = DiskCache(config: config)
            for key in ["a", "b"] { try await cache.store(Data(key.utf8), forKey: key) }
            let old = Date().addingTimeInterval(-7200)
            // Recently read but written long ago: expired when ageing by modification date.
            setFileTimes(cache.cachePath(forKey: "a"), accessed: Date(), modified: old)
            #expect(await cache.data(forKey: "a") != nil)
            // Reads do not touch the times in this mode.
            #expect(try #require(fileTimes(cache.cachePath(forKey: "a"))).modified < Date().timeIntervalSince1970 - 3600)
            let result = await cache.clean()
            #expect(result.expiredCount == 1)
            #expect(await cache.data(forKey: "a") == nil)
            #expect(await cache.data(forKey: "b") != nil)
        }
    }

    @Test func C5_negativeAgeNeverExpires() async throws {
        try await withTemporaryDirectory { directory in
            var config = testConfig(directory)
            config.maxDiskAge = -1
            let cache = DiskCache(config: config)
            try await cache.store(Data([1]), forKey: "ancient")
            let ancient = Date(timeIntervalSince1970: 1_000_000)
            setFileTimes(cache.cachePath(forKey: "ancient"), accessed: ancient, modified: ancient)
            let result = await cache.clean()
            #expect(result.expiredCount == 0)
            #expect(await cache.data(forKey: "ancient") == Data([1]))
        }
    }

    @Test func C6_sizeLimitTrimsAutomaticallyAfterWrite() async throws {
        try await withTemporaryDirectory { directory in
            var config = testConfig(directory)
            config.maxDiskSize = 100_000
            let cache = DiskCache(config: config)
            let payload = Data(repeating: 7, count: 10_000)
            // Ten entries of 10 KB plus a small trailer each: the tenth write crosses the
            // limit. No clean() call anywhere.
            for index in 0..<10 {
                try await cache.store(payload, forKey: "entry-\(index)")
                // File times advance by clock ticks (a few ms), not nanoseconds: space the
                // writes so that "oldest" is well defined.
                try await Task.sleep(for: .milliseconds(15))
            }
            // Trimmed oldest first to half the limit: four entries are left.
            #expect(await eventually { await cache.count() == 4 })
            #expect(await cache.totalSize() <= 50_000)
            for index in 0..<6 { #expect(await cache.data(forKey: "entry-\(index)") == nil) }
            for index in 6..<10 { #expect(await cache.data(forKey: "entry-\(index)") == payload) }
        }
    }

    @Test func C6_trimRemovesOldestFirstToHalfTheLimit() async throws {
        try await withTemporaryDirectory { directory in
            var config = testConfig(directory)
            config.diskExpireType = .accessDate
            let base = Date().addingTimeInterval(-1000)
            // Fill with no limit, date the files, then reopen with a limit the files exceed.
            let filler = DiskCache(config: config)
            for index in 0..<10 {
                try await filler.store(Data(repeating: UInt8(index), count: 1000), forKey: "k\(index)")
                let date = base.addingTimeInterval(Double(index))
                setFileTimes(filler.cachePath(forKey: "k\(index)"), accessed: date, modified: date)
            }
            // k0 was used last, so it is the newest by access date.
            setFileTimes(filler.cachePath(forKey: "k0"), accessed: Date(), modified: base)
            let entrySize = try #require(DiskFiles.status(path: filler.cachePath(forKey: "k1"))).size
            config.maxDiskSize = entrySize * 8
            // The clean is the one that trims: a trim at opening running beside it could
            // leave it a listing taken half-way through.
            config.trimsWhenOpened = false
            let cache = DiskCache(config: config)
            let result = await cache.clean()
            // 10 entries over a limit of 8: down to 4 (half the limit), oldest first.
            #expect(result.remainingCount == 4)
            #expect(await cache.count() == 4)
            for index in [0, 7, 8, 9] { #expect(await cache.data(forKey: "k\(index)") != nil) }
            for index in 1...6 { #expect(await cache.data(forKey: "k\(index)") == nil) }
        }
    }

    /// The configuration of a cache directory holding ten 1,000-byte entries, with a limit
    /// of 4,000 bytes: over it before anything is written.
    private func overfilledConfig(_ directory: String) async throws -> CacheConfig {
        var config = testConfig(directory)
        let filler = DiskCache(config: config)
        for index in 0..<10 { try await filler.store(Data(count: 1000), forKey: "k\(index)") }
        config.maxDiskSize = 4000
        return config
    }

    @Test func C6_oversizedDirectoryIsTrimmedAfterStart() async throws {
        try await withTemporaryDirectory { directory in
            let config = try await overfilledConfig(directory)
            // The background scan at creation notices the excess; no write, no clean() call.
            let cache = DiskCache(config: config)
            #expect(await eventually { await cache.totalSize() <= 2000 })
        }
    }

    @Test func C6_trimWhenOpenedCanBeTurnedOffForToolsThatCleanThemselves() async throws {
        try await withTemporaryDirectory { directory in
            var config = try await overfilledConfig(directory)
            config.trimsWhenOpened = false
            let cache = DiskCache(config: config)
            // Time for the background scan: it must measure, not trim.
            try await Task.sleep(for: .milliseconds(300))
            #expect(await cache.count() == 10)
            // So the explicit clean is the one that trims, and its report says so.
            let result = await cache.clean()
            #expect(result.trimmedCount > 0)
            #expect(result.trimmedCount + result.remainingCount == 10)
        }
    }

    @Test func C7_readOnlyPathsSearchedAfterMainAndNeverWritten() async throws {
        try await withTemporaryDirectory { directory in
            let readOnly = directory + "/bundled"
            try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
            var config = testConfig(directory)
            config.additionalReadOnlyPaths = [readOnly]
            let cache = DiskCache(config: config)
            let (_, png) = try makePNG()
            // A plain image file (no trailer) in the read-only path is accepted as it is.
            let plainName = CacheKey.fileName(forKey: "http://h/plain.png")
            try png.write(to: URL(fileURLWithPath: readOnly + "/" + plainName))
            #expect(await cache.data(forKey: "http://h/plain.png") == png)
            #expect(await cache.contains(forKey: "http://h/plain.png"))
            // An entry written by a cache (with metadata) is read with its metadata.
            var otherConfig = testConfig(directory, namespace: "other")
            otherConfig.rootDirectory = directory
            let other = DiskCache(config: otherConfig)
            try await other.store(Data("bundled".utf8), forKey: "shared", metadata: CacheMetadata(etag: "\"b\""))
            let sharedName = CacheKey.fileName(forKey: "shared")
            try FileManager.default.moveItem(atPath: other.cachePath(forKey: "shared"), toPath: readOnly + "/" + sharedName)
            #expect(await cache.entry(forKey: "shared")?.metadata.etag == "\"b\"")
            // The main directory comes first.
            try await cache.store(Data("main".utf8), forKey: "shared")
            #expect(await cache.data(forKey: "shared") == Data("main".utf8))
            // Removing, clearing and cleaning touch the main directory only.
            await cache.remove(forKey: "shared")
            #expect(await cache.data(forKey: "shared") == Data("bundled".utf8))
            let ancient = Date(timeIntervalSince1970: 1_000_000)
            setFileTimes(readOnly + "/" + plainName, accessed: ancient, modified: ancient)
            await cache.clean()
            await cache.removeAll()
            #expect(fileNames(in: readOnly) == [plainName, sharedName].sorted())
            #expect(await cache.data(forKey: "http://h/plain.png") == png)
            // A damaged file there is a miss but stays.
            var garbled = try Data(contentsOf: URL(fileURLWithPath: readOnly + "/" + sharedName))
            garbled[0] ^= 0xFF
            try garbled.write(to: URL(fileURLWithPath: readOnly + "/" + sharedName))
            #expect(await cache.data(forKey: "shared") == nil)
            #expect(fileNames(in: readOnly).contains(sharedName))
            // Writes never go there.
            try await cache.store(Data("new".utf8), forKey: "new-key")
            #expect(fileNames(in: readOnly).count == 2)
            #expect(await cache.totalSize() > 0)
            #expect(await cache.count() == 1)
        }
    }
}
