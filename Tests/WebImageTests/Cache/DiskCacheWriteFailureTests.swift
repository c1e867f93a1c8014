import Foundation
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

/// Disk faults under a real filesystem: a tmpfs that fills up, is made read-only, or loses
/// the cache directory while the cache runs.
@Suite("Disk cache write failures", .serialized)
struct DiskCacheWriteFailureTests {
    /// Failures seen by an observer.
    final class Failures: Sendable {
        let seen = InlineLocked<[CacheWriteFailure]>([])
        func record(_ failure: CacheWriteFailure) { seen.withLock { $0.append(failure) } }
        var all: [CacheWriteFailure] { seen.withLock { $0 } }
    }

    private func cache(on filesystem: SmallFilesystem) -> (DiskCache, Failures) {
        var config = CacheConfig()
        config.rootDirectory = filesystem.path
        config.namespace = "images"
        config.maxDiskSize = 0
        let cache = DiskCache(config: config)
        let failures = Failures()
        cache.observeWriteFailures { failures.record($0) }
        return (cache, failures)
    }

    @Test("a full disk: the write fails naming the reason, is observed once, leaves no file, and the old entry stays")
    func fullDisk() async throws {
        let filesystem = try #require(try SmallFilesystem.mount(bytes: 64 * 1024), "mounting a tmpfs needs root")
        defer { filesystem.unmount() }
        let (cache, failures) = cache(on: filesystem)
        let small = Data(repeating: 1, count: 1000)
        try await cache.store(small, forKey: "photo")

        let large = Data(repeating: 2, count: 256 * 1024)
        await #expect(throws: ImageError.self) { try await cache.store(large, forKey: "photo") }
        await #expect(throws: ImageError.self) { try await cache.store(large, forKey: "other") }

        #expect(cache.writeFailureCount == 2)
        #expect(failures.all.map(\.key) == ["photo", "other"])
        #expect(failures.all.allSatisfy { $0.directory == cache.directory })
        #expect(failures.all.allSatisfy { "\($0.error)".contains("No space left on device") })
        // The failed writes left no temporary file, and the entry they would have replaced is whole.
        #expect(filesystem.files(in: "images").count == 1)
        #expect(await cache.data(forKey: "photo") == small)
        #expect(await cache.data(forKey: "other") == nil)

        // Room again: writes succeed without anything being reset.
        await cache.remove(forKey: "photo")
        try await cache.store(Data(repeating: 3, count: 20 * 1024), forKey: "other")
        #expect(await cache.data(forKey: "other")?.count == 20 * 1024)
        #expect(cache.writeFailureCount == 2)
    }

    @Test("a directory made read-only while in use: writes fail and are observed, reads go on")
    func readOnly() async throws {
        let filesystem = try #require(try SmallFilesystem.mount(bytes: 1 << 20), "mounting a tmpfs needs root")
        defer { filesystem.unmount() }
        let (cache, failures) = cache(on: filesystem)
        try await cache.store(Data("kept".utf8), forKey: "kept")
        try filesystem.setReadOnly(true)

        await #expect(throws: ImageError.self) { try await cache.store(Data("new".utf8), forKey: "new") }
        #expect(failures.all.count == 1)
        let reason = failures.all.first.map { "\($0.error)" } ?? ""
        #expect(reason.contains("Read-only file system"))
        #expect(await cache.data(forKey: "kept") == Data("kept".utf8))

        try filesystem.setReadOnly(false)
        try await cache.store(Data("new".utf8), forKey: "new")
        #expect(await cache.data(forKey: "new") == Data("new".utf8))
    }

    @Test("a cache directory removed while in use is made again by the next write")
    func directoryRemoved() async throws {
        try await withTemporaryDirectory { directory in
            var config = CacheConfig()
            config.rootDirectory = directory
            config.namespace = "images"
            let cache = DiskCache(config: config)
            try await cache.store(Data("one".utf8), forKey: "one")
            try FileManager.default.removeItem(atPath: cache.directory)
            #expect(await cache.data(forKey: "one") == nil)
            try await cache.store(Data("two".utf8), forKey: "two")
            #expect(await cache.data(forKey: "two") == Data("two".utf8))
            #expect(cache.writeFailureCount == 0)
        }
    }
}
