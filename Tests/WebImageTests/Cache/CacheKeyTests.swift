import Foundation
import Testing
@testable import WebImage

@Suite("Cache keys")
struct CacheKeyTests {
    @Test func C3_fileNameIsMD5PlusPathExtension() {
        #expect(CacheKey.fileName(forKey: "http://h/a.png") == "9ef778804fd929ca71a038547aea542b.png")
        // Query and fragment ignored; the extension keeps its case.
        #expect(CacheKey.fileName(forKey: "https://h/dir/photo.JPG?w=100#frag") == "5069cf852eeb3f40218f72b99645b81b.JPG")
        #expect(CacheKey.fileName(forKey: "https://h/g.png?x=a.gif") == "7f3a5b7e3dfc7c07b75f7ed57b0a936e.png")
        // `:` and NUL stripped from the extension.
        #expect(CacheKey.fileName(forKey: "https://h/b.png:large") == "d7faef8bbbdd71dc21f6e4437b915c89.pnglarge")
        #expect(CacheKey.fileName(forKey: "https://h/f.pn\0g") == "fc067c4ce9c24a76d8acbde34081ac80.png")
        // Over-long and odd extensions dropped; none when the path has none.
        #expect(CacheKey.fileName(forKey: "https://h/c.thisisaverylongextension") == "5ea86bad2350586132a107f748e618f2")
        #expect(CacheKey.fileName(forKey: "https://h/d.p-g") == "0040fd616aae4e010adf453be8c970cc")
        #expect(CacheKey.fileName(forKey: "https://h/e") == "0dbdb39457dafee57c7a1a34e43613d1")
        // A key that is not a URL uses its own extension.
        #expect(CacheKey.fileName(forKey: "key.webp") == "edb68902c2dd3b2a2dbd7aa9c04c2946.webp")
        // A dot in the host is not an extension.
        #expect(CacheKey.fileExtension(forKey: "https://example.com") == nil)
        #expect(CacheKey.fileExtension(forKey: "https://example.com/") == nil)
    }

    @Test func C3_diskCacheWritesUnderTheFileName() async throws {
        try await withTemporaryDirectory { directory in
            let cache = DiskCache(config: testConfig(directory))
            try await cache.store(Data([1, 2, 3]), forKey: "http://h/a.png?v=2")
            let name = CacheKey.fileName(forKey: "http://h/a.png?v=2")
            #expect(name.hasSuffix(".png"))
            #expect(cache.cachePath(forKey: "http://h/a.png?v=2") == directory + "/test/" + name)
            #expect(fileNames(in: directory + "/test") == [name])
        }
    }

    @Test func keyForURLIsAbsoluteString() {
        let url = URL(string: "https://h/a.png?x=1#f")!
        #expect(CacheKey.key(for: url) == "https://h/a.png?x=1#f")
    }

    @Test func K9_transformerKeyInsertedBeforeExtension() {
        #expect(CacheKey.transformedKey("http://h/a.png?x=1#f", transformerKey: "T") == "http://h/a-T.png?x=1#f")
        #expect(CacheKey.transformedKey("http://h/dir.d/a?x=1", transformerKey: "T") == "http://h/dir.d/a-T?x=1")
        #expect(CacheKey.transformedKey("http://h", transformerKey: "T") == "http://h-T")
        #expect(CacheKey.transformedKey("a.png", transformerKey: "T") == "a-T.png")
        #expect(CacheKey.transformedKey("plain-key", transformerKey: "T") == "plain-key-T")
        #expect(CacheKey.transformedKey("http://h/a.png", transformerKey: "") == "http://h/a.png")
        // Characters that would move the query are percent-encoded in a URL.
        #expect(CacheKey.transformedKey("http://h/a.png?x=1", transformerKey: "r?q#1") == "http://h/a-r%3Fq%231.png?x=1")
        // The transformed key keeps the extension, so it still names a .png file.
        #expect(CacheKey.fileExtension(forKey: CacheKey.transformedKey("http://h/a.png?x=1", transformerKey: "blur(1.5)")) == "png")
    }

    /// The escaping of a transformer key inserted in a URL key gives Foundation's
    /// `addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)` byte for byte, so keys
    /// (and the file names made from them) stay what caches already hold.
    @Test func transformerKeyEscapingMatchesFoundation() {
        var samples = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["proxy-rs:fit:300:300,cb:abc;q:80", "é ü%", "日本語/キー", "a\u{301}b", "emoji 🙂 key", "%3A%zz"]
        for sample in samples {
            var escaped: [UInt8] = []
            CacheKey.appendPathEscaped(sample, to: &escaped)
            let foundation = sample.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
            #expect(String(decoding: escaped, as: UTF8.self) == foundation, "\(sample.debugDescription)")
        }
    }
}
