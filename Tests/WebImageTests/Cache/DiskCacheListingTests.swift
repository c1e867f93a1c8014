import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("DiskCache listing")
struct DiskCacheListingTests {
    @Test("C2 entries() lists every entry file with its size and dates, without keys or reads")
    func entriesListFiles() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            #expect(await cache.entries().isEmpty, "no directory yet")
            try await cache.store(Data(repeating: 1, count: 100), forKey: "http://h/a.png")
            try await cache.store(Data(repeating: 2, count: 300), forKey: "http://h/b.jpg")
            let old = Date(timeIntervalSince1970: 1_600_000_000)
            setFileTimes(cache.cachePath(forKey: "http://h/a.png"), accessed: old, modified: old)
            let entries = await cache.entries().sorted { $0.size < $1.size }
            #expect(entries.map(\.path) == [cache.cachePath(forKey: "http://h/a.png"), cache.cachePath(forKey: "http://h/b.jpg")])
            let sizes = entries.map { (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) ?? -1 }
            #expect(entries.map(\.size) == sizes)
            #expect(entries[0].size > 100 && entries[1].size > 300, "bytes plus metadata")
            #expect(entries[0].modificationDate == old)
            #expect(entries[0].accessDate == old)
            #expect(entries[1].modificationDate > old)
            #expect(entries.reduce(0) { $0 + $1.size } == (await cache.totalSize()))
        }
    }

    @Test("C10 storedEntries() reads keys and metadata once; the source URL survives a restart")
    func storedEntriesAndSourceURL() async throws {
        try await withTemporaryDirectory { directory in
            let source = URL(string: "https://example.com/photos/a.jpg?v=2")!
            do {
                let cache = DiskCache(config: testConfig(directory))
                try await cache.store(Data("one".utf8), forKey: "k1", metadata: CacheMetadata(etag: "\"e1\"", sourceURL: source))
                try await cache.store(Data("second".utf8), forKey: "k2")
            }
            let reopened = DiskCache(config: testConfig(directory))
            let entries = await reopened.storedEntries().sorted { $0.key < $1.key }
            #expect(entries.map(\.key) == ["k1", "k2"])
            #expect(entries[0].metadata.sourceURL == source)
            #expect(entries[0].metadata.etag == "\"e1\"")
            #expect(entries[0].dataSize == 3)
            #expect(entries[1].metadata.sourceURL == nil, "an entry without the record reads back without a source URL")
            #expect(await reopened.entry(forKey: "k1")?.metadata.sourceURL == source)
        }
    }

    @Test("C8 storedEntries() skips and removes a damaged file")
    func storedEntriesSkipDamaged() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            try await cache.store(Data("good".utf8), forKey: "good")
            try await cache.store(Data("bad bytes".utf8), forKey: "bad")
            let badPath = cache.cachePath(forKey: "bad")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: badPath))
            bytes[0] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: badPath))
            #expect(await cache.storedEntries().map(\.key) == ["good"])
            #expect(!FileManager.default.fileExists(atPath: badPath))
        }
    }
}
