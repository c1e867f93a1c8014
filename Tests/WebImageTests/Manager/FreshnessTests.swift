import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

/// A clock that starts at the system's time and moves only when a test moves it.
final class TestClock: Sendable {
    private let offset = Locked<TimeInterval>(0)

    /// The clock's time.
    var now: @Sendable () -> Date { { [offset] in Date().addingTimeInterval(offset.withLock { $0 }) } }

    /// Moves the clock `seconds` ahead.
    func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}

/// Cached entries used while fresh, revalidated when stale: images, their bytes and
/// encoded outputs, against the test origin, with staleness by a test clock.
@Suite("Freshness of cached entries")
struct FreshnessTests {
    static let jpeg: Data = try! TestImages.encode(try! TestImages.quadrants(width: 64, height: 48), as: .jpeg)
    static let otherJPEG: Data = try! TestImages.encode(try! TestImages.quadrants(width: 32, height: 24), as: .jpeg)

    /// A path whose response says `cacheControl` with an ETag: `304` to a request that
    /// sends the current ETag back, with `notModifiedCacheControl` when given; the body
    /// changes to `otherJPEG` when `version` is moved to "v2".
    static func register(
        _ origin: TestOrigin, _ path: String, cacheControl: String, version: Locked<String> = Locked("v1")
    ) {
        origin.register(path) { request in
            let current = version.withLock { $0 }
            let etag = "\"\(current)\""
            if request.header("if-none-match") == etag { return .notModified(headers: [("ETag", etag), ("Cache-Control", cacheControl)]) }
            let body = current == "v1" ? jpeg : otherJPEG
            return .image(body, contentType: "image/jpeg", headers: [("ETag", etag), ("Cache-Control", cacheControl)])
        }
    }

    static func withManager(
        freshness: CacheFreshness = .default,
        _ body: (TestOrigin, ImageManager, TestClock) async throws -> Void
    ) async throws {
        try await withOriginAndDownloader { origin, downloader in
            let clock = TestClock()
            let cache = TestCaches.make { $0.freshness = freshness }
            defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
            let manager = ImageManager(cache: cache, loader: ImageLoaders([downloader]), now: clock.now)
            try await body(origin, manager, clock)
        }
    }

    /// A load that skips memory, so that the disk entry's freshness decides.
    static func load(_ manager: ImageManager, _ url: URL, _ output: ImageOutput = .image) async throws -> CacheType {
        let request = ImageRequest(url: url, output: output, options: .waitStoreCache, caching: ImageRequest.Caching(query: .disk))
        if output.isImage { return try await manager.loadImage(request).cacheType }
        return try await manager.loadVariant(request).cacheType
    }

    @Test("HT1 an image within its source's max-age is used without a request; a stale one is revalidated, and a 304 renews it")
    func HT1_maxAgeFreshThenRevalidatedAndRenewed() async throws {
        try await Self.withManager { origin, manager, clock in
            Self.register(origin, "/a.jpg", cacheControl: "max-age=60")
            let url = origin.url("/a.jpg")
            let first = try await Self.load(manager, url)
            #expect(first == CacheType.none)
            clock.advance(30)
            #expect(try await Self.load(manager, url) == .disk)
            #expect(origin.requestCount("/a.jpg") == 1, "fresh: no request")

            clock.advance(40)
            #expect(try await Self.load(manager, url) == .disk, "stale, revalidated, unchanged")
            #expect(origin.requestCount("/a.jpg") == 2)
            #expect(origin.lastRequest("/a.jpg")?.header("if-none-match") == "\"v1\"")

            clock.advance(30)
            #expect(try await Self.load(manager, url) == .disk)
            #expect(origin.requestCount("/a.jpg") == 2, "the 304 renewed it for another 60 s")
        }
    }

    @Test("HT1 a stale entry whose source changed is replaced by the new bytes")
    func HT1_staleEntryReplaced() async throws {
        try await Self.withManager { origin, manager, clock in
            let version = Locked("v1")
            Self.register(origin, "/a.jpg", cacheControl: "max-age=60", version: version)
            let url = origin.url("/a.jpg")
            _ = try await Self.load(manager, url, .data)
            version.withLock { $0 = "v2" }
            clock.advance(61)
            let request = ImageRequest(url: url, output: .data, options: .waitStoreCache, caching: ImageRequest.Caching(query: .disk))
            let result = try await manager.loadImage(request)
            #expect(result.cacheType == CacheType.none && result.data == Self.otherJPEG)
            #expect(await manager.cache.diskData(forKey: url.absoluteString) == Self.otherJPEG)
            #expect(await manager.cache.metadata(forKey: url.absoluteString)?.etag == "\"v2\"")
        }
    }

    @Test("HT1 no-cache revalidates on every use; Expires in the past and no-store too")
    func HT1_noCacheRevalidatesEachUse() async throws {
        try await Self.withManager { origin, manager, _ in
            for (path, header) in [("/n.jpg", "no-cache"), ("/s.jpg", "no-store")] {
                Self.register(origin, path, cacheControl: header)
                let url = origin.url(path)
                _ = try await Self.load(manager, url)
                #expect(try await Self.load(manager, url) == .disk)
                #expect(try await Self.load(manager, url) == .disk)
                #expect(origin.requestCount(path) == 3, "\(header): one conditional request per use")
            }
            origin.register("/e.jpg", .image(Self.jpeg, contentType: "image/jpeg", headers: [("Expires", "Thu, 01 Jan 1970 00:00:00 GMT")]))
            let url = origin.url("/e.jpg")
            _ = try await Self.load(manager, url)
            _ = try await Self.load(manager, url)
            #expect(origin.requestCount("/e.jpg") == 2, "expired, without a validator: loaded again")
        }
    }

    @Test("HT1 an encoded output is as fresh as its source: used while fresh, made again after a 304 without downloading the source")
    func HT1_variantFollowsSourceFreshness() async throws {
        try await Self.withManager { origin, manager, clock in
            Self.register(origin, "/v.jpg", cacheControl: "max-age=60")
            let url = origin.url("/v.jpg")
            let output = ImageOutput.encoded(VariantEncoding(format: .fixed(.webp)))
            #expect(try await Self.load(manager, url, output) == CacheType.none)
            #expect(try await Self.load(manager, url, output) == .disk)
            // The memory tier answers within the source's max-age too, and not past it.
            let request = ImageRequest(url: url, output: output)
            let key = try #require(manager.cacheKey(for: request))
            #expect(manager.variantFromMemory(for: request, key: key) != nil)
            clock.advance(61)
            #expect(manager.variantFromMemory(for: request, key: key) == nil)

            let result = try await manager.loadVariant(request.adding(.waitStoreCache))
            #expect(result.cacheType == CacheType.none && result.sourceCacheType == .disk && result.downloadedBytes == 0)
            #expect(origin.requestCount("/v.jpg") == 2, "one conditional request, answered 304")
            #expect(try await Self.load(manager, url, output) == .disk)
            #expect(origin.requestCount("/v.jpg") == 2)
        }
    }

    @Test("HT1 the cache's own ages: a default age for sources that say nothing, a maximum over what they say, and never past eviction when asked")
    func HT1_agesOfTheCache() async throws {
        try await Self.withManager(freshness: CacheFreshness(defaultMaxAge: .seconds(10), maxAge: .seconds(100))) { origin, manager, clock in
            origin.register("/quiet.jpg", .image(Self.jpeg, contentType: "image/jpeg", headers: [("ETag", "\"q\"")]))
            Self.register(origin, "/long.jpg", cacheControl: "max-age=100000")
            let quiet = origin.url("/quiet.jpg"), long = origin.url("/long.jpg")
            _ = try await Self.load(manager, quiet)
            _ = try await Self.load(manager, long)
            clock.advance(11)
            _ = try await Self.load(manager, quiet)
            _ = try await Self.load(manager, long)
            #expect(origin.requestCount("/quiet.jpg") == 2 && origin.requestCount("/long.jpg") == 1)
            clock.advance(100)
            _ = try await Self.load(manager, long)
            #expect(origin.requestCount("/long.jpg") == 2, "the cache's maximum age bounds the source's")

            // A request's own rule takes the cache's place.
            var request = ImageRequest(url: quiet, caching: ImageRequest.Caching(query: .disk, freshness: .untilEvicted))
            clock.advance(1000)
            #expect(try await manager.loadImage(request).cacheType == .disk)
            #expect(origin.requestCount("/quiet.jpg") == 2)
            request.caching.freshness = .always
            _ = try await manager.loadImage(request)
            #expect(origin.requestCount("/quiet.jpg") == 3)
        }
    }

    @Test("HT1 within the stale window the stale entry is served at once and revalidated in the background, once")
    func HT1_staleWhileRevalidate() async throws {
        try await Self.withManager(freshness: CacheFreshness(staleWhileRevalidate: .seconds(30))) { origin, manager, clock in
            let version = Locked("v1")
            Self.register(origin, "/w.jpg", cacheControl: "max-age=60", version: version)
            let url = origin.url("/w.jpg")
            _ = try await Self.load(manager, url, .data)
            version.withLock { $0 = "v2" }
            clock.advance(70)
            let request = ImageRequest(url: url, output: .data, caching: ImageRequest.Caching(query: .disk))
            let stale = try await manager.loadImage(request)
            #expect(stale.data == Self.jpeg, "the stale bytes at once")
            #expect(await origin.waitForRequests("/w.jpg", count: 2))
            #expect(await eventually { manager.pipeline.backgroundRevalidations.withLock { $0.isEmpty } })
            #expect(await manager.cache.metadata(forKey: url.absoluteString)?.etag == "\"v2\"", "replaced in the background")
            #expect(try await manager.loadImage(request).data == Self.otherJPEG)
            #expect(origin.requestCount("/w.jpg") == 2)

            // Past the window, the stale entry is revalidated first.
            clock.advance(200)
            #expect(try await manager.loadImage(request).data == Self.otherJPEG)
            #expect(origin.requestCount("/w.jpg") == 3)
        }
    }

    @Test("HT1 refreshCached skips an entry known to be fresh, and revalidates it when the rule says always")
    func HT1_refreshCachedSkipsFresh() async throws {
        try await Self.withManager { origin, manager, _ in
            Self.register(origin, "/r.jpg", cacheControl: "max-age=60")
            let url = origin.url("/r.jpg")
            _ = try await Self.load(manager, url)
            var request = ImageRequest(url: url, options: .refreshCached)
            #expect(try await manager.loadImage(request).cacheType != CacheType.none)
            #expect(origin.requestCount("/r.jpg") == 1)
            request.caching.freshness = .always
            _ = try await manager.loadImage(request)
            #expect(origin.requestCount("/r.jpg") == 2)
        }
    }
}

@Suite("CacheFreshness: the rule")
struct CacheFreshnessRuleTests {
    static let stored = Date(timeIntervalSince1970: 1_000_000)

    @Test("expiry from the source, a default age, a maximum; the stale window from the source or the rule")
    func rule() {
        let sourceSays = CacheMetadata(expirationDate: Self.stored.addingTimeInterval(60), storedDate: Self.stored)
        let silent = CacheMetadata(storedDate: Self.stored)
        #expect(CacheFreshness.default.expiry(of: sourceSays) == Self.stored.addingTimeInterval(60))
        #expect(CacheFreshness.default.expiry(of: silent) == nil)
        #expect(CacheFreshness.untilEvicted.expiry(of: sourceSays) == nil)
        #expect(CacheFreshness(defaultMaxAge: .seconds(5)).expiry(of: silent) == Self.stored.addingTimeInterval(5))
        #expect(CacheFreshness(defaultMaxAge: .seconds(5)).expiry(of: sourceSays) == Self.stored.addingTimeInterval(60))
        #expect(CacheFreshness(maxAge: .seconds(10)).expiry(of: sourceSays) == Self.stored.addingTimeInterval(10))
        #expect(CacheFreshness(maxAge: .seconds(10)).expiry(of: silent) == Self.stored.addingTimeInterval(10))
        #expect(CacheFreshness.always.state(of: silent, at: Self.stored) == .stale)

        let rule = CacheFreshness(staleWhileRevalidate: .seconds(20))
        #expect(rule.state(of: sourceSays, at: Self.stored.addingTimeInterval(59)) == .fresh)
        #expect(rule.state(of: sourceSays, at: Self.stored.addingTimeInterval(70)) == .servableWhileRevalidating)
        #expect(rule.state(of: sourceSays, at: Self.stored.addingTimeInterval(81)) == .stale)
        var windowed = sourceSays
        windowed.cacheControl = "max-age=60, stale-while-revalidate=100"
        #expect(rule.state(of: windowed, at: Self.stored.addingTimeInterval(150)) == .servableWhileRevalidating)
        #expect(CacheFreshness.default.state(of: windowed, at: Self.stored.addingTimeInterval(70)) == .stale, "serving stale is asked for")
    }

    // Cache-Control and Expires as RFC 9111's examples and common origins write them.
    @Test("a response's expiry", arguments: [
        ("max-age=60", nil, 60.0),
        ("public, max-age=60", nil, 60.0),
        ("MAX-AGE=60", nil, 60.0),
        ("max-age=\"60\"", nil, 60.0),
        ("s-maxage=10, max-age=60", nil, 10.0),
        ("max-age=-5", nil, 0.0),
        ("no-cache", nil, 0.0),
        ("no-cache=\"set-cookie\", max-age=60", nil, 0.0),
        ("no-store", nil, 0.0),
        ("max-age=abc", "Thu, 01 Jan 1970 00:16:50 GMT", 10.0),
        (nil, "Thu, 01 Jan 1970 00:16:50 GMT", 10.0),
        (nil, "0", 0.0),
        ("private", nil, nil),
    ] as [(String?, String?, Double?)])
    func responseExpiry(cacheControl: String?, expires: String?, seconds: Double?) {
        var headers: [(String, String)] = []
        if let cacheControl { headers.append(("Cache-Control", cacheControl)) }
        if let expires { headers.append(("Expires", expires)) }
        let now = Date(timeIntervalSince1970: 1000)
        let head = DownloadResponseHead(url: URL(string: "http://a.test/")!, statusCode: 200, headers: .init(headers))
        let metadata = CacheMetadata(response: head, now: now)
        #expect(metadata.expirationDate == seconds.map { now.addingTimeInterval($0) })
    }
}
