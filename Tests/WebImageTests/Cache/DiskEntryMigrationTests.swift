import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// ``CacheConfig/diskEntryMigration``: entry files of an older format version read through a
/// migration and rewritten in the current one; newer ones, and older ones the migration
/// cannot read, left as they are.
@Suite("Disk entry migration")
struct DiskEntryMigrationTests {
    /// Writes `data` under `key` as an entry of format `version` would be: the current
    /// layout, with `version` in its footer and a CRC-32C that matches it.
    static func writeEntry(_ data: Data, key: String, version: UInt16, in cache: DiskCache) throws {
        let trailer = DiskEntryFormat.trailer(for: data, metadata: CacheMetadata(etag: "\"old\""), key: key, version: version)
        try FileManager.default.createDirectory(atPath: cache.directory, withIntermediateDirectories: true)
        try (data + Data(trailer)).write(to: URL(fileURLWithPath: cache.cachePath(forKey: key)))
    }

    /// The format version in the footer of `path`'s file.
    static func footerVersion(_ path: String) throws -> UInt16 {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let offset = bytes.count - DiskEntryFormat.footerSize + 12
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    /// A migration that reads the fabricated old files (the current layout under another
    /// version), hands back their bytes with metadata of its own, and records its calls.
    static func migration(calls: Recorder<DiskEntryMigration.OldEntry>, reads: Bool = true) -> DiskEntryMigration {
        DiskEntryMigration { old in
            calls.append(old)
            guard reads else { return nil }
            let length = old.file.withUnsafeBytes { bytes in
                Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - DiskEntryFormat.footerSize, as: UInt64.self)))
            }
            return DiskCacheEntry(data: old.file.prefix(length), metadata: CacheMetadata(etag: "\"migrated\""))
        }
    }

    @Test("HT4 an older entry with a migration is a hit with the migrated bytes and metadata, rewritten at the current version, and migrated once")
    func HT4_olderEntryIsMigrated() async throws {
        try await withTemporaryDirectory { directory in
            let calls = Recorder<DiskEntryMigration.OldEntry>()
            var config = testConfig(directory)
            config.diskEntryMigration = Self.migration(calls: calls)
            let cache = DiskCache(config: config)
            try Self.writeEntry(Data("old bytes".utf8), key: "a", version: 0, in: cache)
            #expect(try Self.footerVersion(cache.cachePath(forKey: "a")) == 0)

            let entry = try #require(cache.entrySync(forKey: "a"))
            #expect(entry.data == Data("old bytes".utf8))
            #expect(entry.metadata.etag == "\"migrated\"")
            #expect(calls.count == 1)
            #expect(calls.values.first?.version == 0 && calls.values.first?.key == "a")
            #expect(try Self.footerVersion(cache.cachePath(forKey: "a")) == DiskEntryFormat.version, "rewritten in the current format")

            // A fresh reader finds the current format: the migration is not asked again.
            let reader = DiskCache(config: config)
            #expect(reader.entrySync(forKey: "a")?.metadata.etag == "\"migrated\"")
            #expect(await reader.data(forKey: "a") == Data("old bytes".utf8))
            #expect(calls.count == 1)
            #expect(cache.countSync() == 1)
        }
    }

    @Test("HT4 an older entry without a migration is a miss and stays")
    func HT4_olderEntryWithoutMigrationStays() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            try Self.writeEntry(Data("old bytes".utf8), key: "a", version: 0, in: cache)
            #expect(cache.entrySync(forKey: "a") == nil)
            #expect(FileManager.default.fileExists(atPath: cache.cachePath(forKey: "a")))
            #expect(try Self.footerVersion(cache.cachePath(forKey: "a")) == 0)
        }
    }

    @Test("HT4 a newer entry is left alone: the migration is not asked, it is a miss, and it stays")
    func HT4_newerEntryIsLeftAlone() async throws {
        try await withTemporaryDirectory { directory in
            let calls = Recorder<DiskEntryMigration.OldEntry>()
            var config = testConfig(directory)
            config.diskEntryMigration = Self.migration(calls: calls)
            let cache = DiskCache(config: config)
            try Self.writeEntry(Data("new bytes".utf8), key: "a", version: DiskEntryFormat.version + 1, in: cache)
            #expect(cache.entrySync(forKey: "a") == nil)
            #expect(await cache.keys().isEmpty)
            #expect(calls.count == 0)
            #expect(try Self.footerVersion(cache.cachePath(forKey: "a")) == DiskEntryFormat.version + 1, "left for the build that wrote it")
        }
    }

    @Test("HT4 a migration that cannot read the entry leaves it a miss, in place")
    func HT4_migrationReturningNilLeavesTheFile() async throws {
        try await withTemporaryDirectory { directory in
            let calls = Recorder<DiskEntryMigration.OldEntry>()
            var config = testConfig(directory)
            config.diskEntryMigration = Self.migration(calls: calls, reads: false)
            let cache = DiskCache(config: config)
            try Self.writeEntry(Data("old bytes".utf8), key: "a", version: 0, in: cache)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: cache.cachePath(forKey: "a"))[.size] as? Int)
            #expect(cache.entrySync(forKey: "a") == nil)
            #expect(calls.count == 1)
            #expect(try Self.footerVersion(cache.cachePath(forKey: "a")) == 0)
            #expect(cache.totalSizeSync() == size)
        }
    }

    @Test("HT4 a listing migrates an older entry whose migration names its key")
    func HT4_listingMigratesNamedEntries() async throws {
        try await withTemporaryDirectory { directory in
            var config = testConfig(directory)
            config.diskEntryMigration = DiskEntryMigration { old in
                old.key == nil ? DiskCacheEntry(data: old.file.prefix(3), metadata: CacheMetadata(), key: "a") : nil
            }
            let cache = DiskCache(config: config)
            try Self.writeEntry(Data("old".utf8), key: "a", version: 0, in: cache)
            try Self.writeEntry(Data("old".utf8), key: "b", version: 0, in: cache)
            #expect(await cache.keys() == ["a"], "b's file is not the file of the key the migration names")
            #expect(try Self.footerVersion(cache.cachePath(forKey: "a")) == DiskEntryFormat.version)
            #expect(try Self.footerVersion(cache.cachePath(forKey: "b")) == 0)
        }
    }

    @Test("HT4 the trim counts entries of older versions that were never migrated, and removes them as any entry")
    func HT4_trimCountsUnmigratedFiles() async throws {
        try await withTemporaryDirectory { directory in
            var config = testConfig(directory)
            config.maxDiskSize = 4_000
            let cache = DiskCache(config: config)
            let old = Date().addingTimeInterval(-3600)
            for index in 0..<4 {
                try Self.writeEntry(Data(repeating: UInt8(index), count: 1_000), key: "old-\(index)", version: 0, in: cache)
                setFileTimes(cache.cachePath(forKey: "old-\(index)"), accessed: old, modified: old)
            }
            try cache.storeSync(Data(repeating: 9, count: 1_000), forKey: "current")
            #expect(cache.totalSizeSync() > config.maxDiskSize)
            let result = cache.cleanSync()
            #expect(result.trimmedCount >= 3, "the oldest, unmigrated files go first")
            #expect(cache.totalSizeSync() <= config.maxDiskSize / 2)
            #expect(cache.entrySync(forKey: "current") != nil)
        }
    }

    @Test("a migration equals its copies only")
    func equality() {
        let migration = DiskEntryMigration { _ in nil }
        let copy = migration
        #expect(migration == copy && migration.hashValue == copy.hashValue)
        #expect(migration != DiskEntryMigration { _ in nil })
        var config = CacheConfig()
        config.diskEntryMigration = migration
        #expect(config != CacheConfig())
    }
}
