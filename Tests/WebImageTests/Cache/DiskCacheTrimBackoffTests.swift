import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// A disk cache over its size limit in a directory that refuses deletions.
@Suite("Disk cache trim back-off", .serialized)
struct DiskCacheTrimBackoffTests {
    @Test("a trim that can delete nothing is retried after a wait that doubles, its failures counted; once it can delete, it trims")
    func trimBacksOff() async throws {
        let filesystem = try #require(try SmallFilesystem.mount(bytes: 1 << 20), "mounting a tmpfs needs root")
        defer { filesystem.unmount() }
        var config = CacheConfig()
        config.rootDirectory = filesystem.path
        config.namespace = "images"
        config.maxDiskSize = 0
        config.autoCleanInterval = nil
        let writer = DiskCache(config: config)
        for index in 0..<5 { try await writer.store(Data(repeating: UInt8(index), count: 2000), forKey: "entry\(index)") }
        try filesystem.setReadOnly(true)

        // Opened over its limit on a read-only directory: the trim starts and fails.
        config.maxDiskSize = 8192
        config.trimRetryDelay = .milliseconds(20)
        let cache = DiskCache(config: config)
        #expect(await eventually { (cache.trimRetryDelay ?? .zero) >= .milliseconds(80) }, "20, 40, 80 ms: the wait doubles")
        let failures = cache.failedRemovalCount
        #expect(failures >= 3 * 4, "each try failed to remove the four oldest entries")
        #expect(filesystem.files(in: "images").count == 5)

        // Deletions allowed again: the next try trims to half the limit and the waits stop.
        try filesystem.setReadOnly(false)
        #expect(await eventually { filesystem.files(in: "images").count == 1 })
        #expect(await eventually { cache.trimRetryDelay == nil })
        #expect(cache.failedRemovalCount >= failures)
    }
}
