import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

@Suite("ImageManager encoded variants")
struct ImageManagerVariantTests {
    static let jpeg: Data = try! TestImages.encode(try! TestImages.quadrants(width: 800, height: 600), as: .jpeg, quality: 90)

    static func thumbnail(_ url: URL, format: ImageFormat = .webp) -> ImageRequest {
        ImageRequest.variant(
            url: url, transformer: ResizeTransformer(size: PixelSize(width: 200, height: 150), mode: .fill),
            encoding: VariantEncoding(format: .fixed(format), quality: 70)
        )
    }

    /// A manager over `cache` (a fresh one by default) counting its coder's work.
    static func withVariantManager(
        cache: ImageCache? = nil,
        limiter: WorkLimiter? = nil,
        _ body: (TestOrigin, ImageManager, CountingCoder) async throws -> Void
    ) async throws {
        try await withOriginAndDownloader { origin, downloader in
            let coder = CountingCoder()
            let cache = cache ?? TestCaches.make { $0.shouldCacheImagesInMemory = false }
            let manager = ImageManager(cache: cache, loader: ImageLoaders([downloader]), coder: coder, variantWorkLimiter: limiter)
            try await body(origin, manager, coder)
        }
    }

    @Test("100 concurrent requests for one variant: 1 download, 1 encode; a new manager on the same directory serves it from disk with 0 encodes")
    func coalescedAndPersisted() async throws {
        let cache = TestCaches.make { $0.shouldCacheImagesInMemory = false }
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        let gate = TestOriginGate()
        var url: URL?
        var etag: String?
        try await Self.withVariantManager(cache: cache) { origin, manager, coder in
            origin.register("/p.jpg", .gated(gate, then: .image(Self.jpeg, contentType: "image/jpeg", headers: [("ETag", "\"src1\"")])))
            url = origin.url("/p.jpg")
            let request = Self.thumbnail(origin.url("/p.jpg"))
            let results = try await withThrowingTaskGroup(of: VariantResult.self) { group in
                for _ in 0..<100 {
                    group.addTask { try await manager.loadVariant(request.adding(.waitStoreCache)) }
                }
                #expect(await gate.waitForArrivals(1))
                gate.open()
                var results: [VariantResult] = []
                for try await result in group { results.append(result) }
                return results
            }
            #expect(origin.requestCount("/p.jpg") == 1)
            #expect(coder.encodeCount == 1)
            #expect(Set(results.map(\.variant.etag)).count == 1)
            #expect(results.filter { !$0.joined }.count == 1, "one request made it, the others joined")
            let made = try #require(results.first { !$0.joined })
            #expect(made.cacheType == CacheType.none && made.sourceCacheType == CacheType.none && made.downloadedBytes == Self.jpeg.count)
            #expect(made.variant.format == .webp)
            #expect(made.variant.pixelSize == PixelSize(width: 200, height: 150))
            #expect(made.variant.sourceETag == "\"src1\"")
            etag = made.variant.etag
            // The next request is a memory hit, also without a suspension.
            let key = try #require(manager.cacheKey(for: request))
            #expect(manager.cache.variantFromMemory(forKey: key)?.etag == etag)
            #expect(try await manager.loadVariant(request).cacheType == .memory)
        }
        // A new manager on the same directory (another process, after a restart).
        let reopened = ImageCache(config: cache.config)
        try await Self.withVariantManager(cache: reopened) { origin, manager, coder in
            let result = try await manager.loadVariant(Self.thumbnail(try #require(url)))
            #expect(result.cacheType == .disk)
            #expect(result.variant.etag == etag)
            #expect(result.variant.pixelSize == PixelSize(width: 200, height: 150))
            #expect(result.variant.sourceETag == "\"src1\"")
            #expect(coder.encodeCount == 0 && coder.decodeCount == 0)
            #expect(origin.totalRequestCount == 0)
        }
    }

    @Test("ten different variants of one uncached source asked for at once share one download, and the source is kept once")
    func variantsShareTheSourceDownload() async throws {
        try await Self.withVariantManager { origin, manager, coder in
            let gate = TestOriginGate()
            origin.register("/s.jpg", .gated(gate, then: .image(Self.jpeg, contentType: "image/jpeg")))
            let url = origin.url("/s.jpg")
            let sizes = (1...10).map { PixelSize(width: 20 * $0, height: 15 * $0) }
            let results = try await withThrowingTaskGroup(of: VariantResult.self) { group in
                for size in sizes {
                    let request = ImageRequest.variant(
                        url: url, transformer: ResizeTransformer(size: size, mode: .fill), encoding: VariantEncoding(format: .fixed(.png))
                    )
                    group.addTask { try await manager.loadVariant(request.adding(.waitStoreCache)) }
                }
                #expect(await gate.waitForArrivals(1))
                try await Task.sleep(for: .milliseconds(100))  // every variant has asked for the source
                gate.open()
                return try await group.reduce(into: [VariantResult]()) { $0.append($1) }
            }
            #expect(origin.requestCount("/s.jpg") == 1)
            #expect(coder.encodeCount == 10)
            #expect(Set(results.map(\.variant.pixelSize)) == Set(sizes))
            #expect(await manager.imageCache.diskData(forKey: url.absoluteString) == Self.jpeg)

            // A variant returns only once its downloaded source is on disk, so the next
            // variant of another source finds it there, however soon it starts.
            origin.register("/t.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let next = origin.url("/t.jpg")
            for size in sizes.prefix(5) {
                let request = ImageRequest.variant(url: next, transformer: ResizeTransformer(size: size, mode: .fill), encoding: VariantEncoding(format: .fixed(.png)))
                _ = try await manager.loadVariant(request)
            }
            #expect(origin.requestCount("/t.jpg") == 1)
        }
    }

    @Test("a variant is made from the cached original without a download, decoded shrunk (shrink-on-load)")
    func madeFromCachedOriginal() async throws {
        try await Self.withVariantManager { origin, manager, coder in
            origin.register("/o.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let url = origin.url("/o.jpg")
            _ = try await manager.loadVariant(Self.thumbnail(url).adding(.waitStoreCache))
            #expect(await manager.imageCache.diskData(forKey: url.absoluteString) == Self.jpeg, "the original is kept for other variants")
            let other = ImageRequest.variant(
                url: url, transformer: ResizeTransformer(size: PixelSize(width: 100, height: 100), mode: .fill),
                encoding: VariantEncoding(format: .fixed(.png))
            )
            let result = try await manager.loadVariant(other)
            #expect(result.cacheType == CacheType.none && result.sourceCacheType == .disk && result.downloadedBytes == 0)
            #expect(result.variant.format == .png && result.variant.pixelSize == PixelSize(width: 100, height: 100))
            #expect(origin.requestCount("/o.jpg") == 1)
            // Both decodes were shrunk to the transformer's scaled size, never the full 800×600.
            let boxes = coder.decodeBoxes.withLock { $0 }
            #expect(boxes.count == 2 && boxes.allSatisfy { $0 != nil })
            #expect(boxes.last! == PixelSize(width: 133, height: 100))
        }
    }

    @Test("a variant made from the cached original is read, made and written to disk in one visit to the coding threads: on disk when the call returns")
    func cachedOriginalMadeAndStoredInOneVisit() async throws {
        try await Self.withVariantManager { origin, manager, coder in
            origin.register("/s.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let url = origin.url("/s.jpg")
            _ = try await manager.loadVariant(Self.thumbnail(url).adding(.waitStoreCache))
            let other = Self.thumbnail(url, format: .png)
            // No waitStoreCache: the coding thread wrote the variant before the call returned.
            let result = try await manager.loadVariant(other)
            #expect(result.sourceCacheType == .disk && result.downloadedBytes == 0)
            let key = try #require(manager.cacheKey(for: other))
            #expect(await manager.imageCache.diskData(forKey: key) == result.variant.data)
            #expect(origin.requestCount("/s.jpg") == 1 && coder.encodeCount == 2)
        }
    }

    @Test("a cache of one's own gives variants from its cached originals, without a download")
    func ownCacheSource() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/a.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let url = origin.url("/a.jpg")
            let cache = DictionaryCache()
            let manager = ImageManager(cache: cache, loader: ImageLoaders([downloader]), coder: CountingCoder())
            _ = try await manager.loadVariant(Self.thumbnail(url).adding(.waitStoreCache))
            let other = Self.thumbnail(url, format: .png)
            let result = try await manager.loadVariant(other.adding(.waitStoreCache))
            #expect(result.sourceCacheType == .disk && result.downloadedBytes == 0)
            #expect(origin.requestCount("/a.jpg") == 1)
            let key = try #require(manager.cacheKey(for: other))
            #expect(await cache.entry(forKey: key)?.data == result.variant.data)
        }
    }

    @Test("the format can follow the source: PNG with alpha stays PNG, JPEG stays JPEG, an unpreferred format becomes a preferred one")
    func formatMatchingSource() async throws {
        try await Self.withVariantManager { origin, manager, _ in
            let png = try TestImages.encode(try TestImages.halfTransparent(width: 40, height: 40), as: .png)
            let tiff = try TestImages.encode(try TestImages.quadrants(width: 40, height: 40), as: .tiff)
            origin.register("/a.png", .image(png))
            origin.register("/b.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            origin.register("/c.tif", .image(tiff, contentType: "image/tiff"))
            func format(_ path: String, preferred: [ImageFormat] = [.jpeg, .png, .gif, .webp]) async throws -> ImageFormat {
                let request = ImageRequest.variant(url: origin.url(path), encoding: VariantEncoding(format: .matchingSource(preferred: preferred)))
                return try await manager.loadVariant(request).variant.format
            }
            #expect(try await format("/a.png") == .png)
            #expect(try await format("/b.jpg") == .jpeg)
            #expect(try await format("/c.tif") == .jpeg)
            #expect(try await format("/a.png", preferred: [.jpeg, .webp]) == .webp, "alpha skips JPEG")
        }
    }

    @Test("passthrough serves the source's bytes as they are, after checking the limits")
    func passthrough() async throws {
        try await Self.withVariantManager { origin, manager, coder in
            origin.register("/raw.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let result = try await manager.loadVariant(ImageRequest.variant(url: origin.url("/raw.jpg"), passthrough: true))
            #expect(result.variant.data == Self.jpeg)
            #expect(result.variant.pixelSize == PixelSize(width: 800, height: 600))
            #expect(coder.encodeCount == 0 && coder.decodeCount == 0)
            await #expect(throws: ImageError.imageTooLarge(pixels: 480_000, limit: 1000)) {
                try await manager.loadVariant(ImageRequest.variant(url: origin.url("/raw.jpg?2"), passthrough: true).limited(ImageLimits(maxPixels: 1000)))
            }
        }
    }

    @Test("bad source bytes fail clearly and leave no trace in the caches; a cached source that is not an image is removed and fetched again")
    func badSourceLeavesNoTrace() async throws {
        try await Self.withVariantManager { origin, manager, coder in
            origin.register("/bad.jpg", .data(Data("<html>nope</html>".utf8), contentType: "image/jpeg"))
            let url = origin.url("/bad.jpg")
            let request = Self.thumbnail(url)
            await #expect(throws: ImageError.self) { try await manager.loadVariant(request.adding(.waitStoreCache)) }
            #expect(await manager.imageCache.diskCount() == 0)
            let key = try #require(manager.cacheKey(for: request))
            #expect(manager.cache.variantFromMemory(forKey: key) == nil)

            // Garbage stored under the original's key is dropped and the source downloaded.
            origin.register("/ok.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let ok = origin.url("/ok.jpg")
            try await manager.cache.store(nil, data: Data("garbage".utf8), forKey: ok.absoluteString, cacheType: .disk)
            let result = try await manager.loadVariant(Self.thumbnail(ok).adding(.waitStoreCache))
            #expect(result.sourceCacheType == CacheType.none)
            #expect(origin.requestCount("/ok.jpg") == 1)
            #expect(await manager.cache.diskData(forKey: ok.absoluteString) == Self.jpeg)
            #expect(coder.encodeCount == 1)
        }
    }

    @Test("fromCacheOnly fails with notInCache without a download; the variant key is stable and distinct")
    func cacheOnlyAndKeys() async throws {
        try await Self.withVariantManager { origin, manager, _ in
            origin.register("/k.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let request = Self.thumbnail(origin.url("/k.jpg"))
            await #expect(throws: ImageError.self) { try await manager.loadVariant(request.adding(.fromCacheOnly)) }
            #expect(origin.totalRequestCount == 0)
            let key = try #require(manager.cacheKey(for: request))
            #expect(key == manager.cacheKey(for: Self.thumbnail(origin.url("/k.jpg"))))
            // Inserted as a transformer key: percent-encoded where a URL path needs it.
            #expect(key.hasSuffix("/k-variant(resize-fill-200x150-ce%3Bf%3Awebp,q%3A70).jpg"))
            #expect(key != manager.cacheKey(for: Self.thumbnail(origin.url("/k.jpg"), format: .png)))
        }
    }

    @Test("with a work limiter, a full queue turns variant work away with overloaded; cache hits need no slot")
    func workLimiter() async throws {
        let limiter = WorkLimiter(workers: 1, queueSize: 0)
        let coder = PlanningCoder(holdingPlans: true)
        try await withOriginAndDownloader { origin, downloader in
            let manager = ImageManager(cache: TestCaches.make(), loader: downloader, coder: coder, variantWorkLimiter: limiter)
            origin.register("/slow.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            origin.register("/other.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            // Held in its decode, in the only slot.
            let slow = Task { try await manager.loadVariant(Self.thumbnail(origin.url("/slow.jpg"))) }
            #expect(await eventually { coder.planned.load(ordering: .relaxed) == 1 })
            #expect(limiter.running == 1)
            await #expect(throws: ImageError.overloaded("all 1 workers are busy and 0 requests are waiting")) {
                try await manager.loadVariant(Self.thumbnail(origin.url("/other.jpg")))
            }
            // A second request for the busy variant joins it instead of asking for a slot.
            let joined = Task { try await manager.loadVariant(Self.thumbnail(origin.url("/slow.jpg"))) }
            #expect(await eventually { manager.pipeline.variants.all.first?.subscriberCount == 2 })
            coder.open(1)
            let slowResult = try await slow.value
            let joinedResult = try await joined.value
            #expect(slowResult.joined == false)
            #expect(joinedResult.joined == true)
            let again = try await manager.loadVariant(Self.thumbnail(origin.url("/slow.jpg")))
            #expect(again.cacheType == .memory)
        }
    }

    @Test("a variant request's cache tiers: kept in memory only, or loaded without a lookup and still kept")
    func cacheTiers() async throws {
        try await Self.withVariantManager { origin, manager, coder in
            origin.register("/m.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let request = Self.thumbnail(origin.url("/m.jpg"))
            var memoryOnly = request.adding(.waitStoreCache)
            memoryOnly.caching.store = .memory
            memoryOnly.caching.originals = ImageRequest.OriginalCaching(store: .none)
            _ = try await manager.loadVariant(memoryOnly)
            #expect(await manager.imageCache.diskCount() == 0, "neither the variant nor the original on disk")
            #expect(try await manager.loadVariant(request).cacheType == .memory)
            var loaderOnly = request.adding(.waitStoreCache)
            loaderOnly.caching.query = .none
            loaderOnly.caching.originals = ImageRequest.OriginalCaching(query: .none)
            let fresh = try await manager.loadVariant(loaderOnly)
            #expect(fresh.cacheType == CacheType.none && fresh.sourceCacheType == CacheType.none)
            #expect(origin.requestCount("/m.jpg") == 2 && coder.encodeCount == 2)

            // Loading without a lookup still stores: the variant and the original.
            #expect(await manager.imageCache.diskCount() == 2)
        }
    }

    @Test("a variant nobody waits for any more is stopped; with continueInBackground it is finished, cached and reported once")
    func abandonedVariants() async throws {
        try await Self.withVariantManager { origin, manager, coder in
            let made = Recorder<Int>()
            manager.events.observe { event in
                if case .variantMade(_, let bytes, _, _) = event { made.append(bytes) }
            }
            origin.register("/stop.jpg", .stall(afterBodyBytes: 100, of: .image(Self.jpeg, contentType: "image/jpeg")))
            let stopped = Task { try await manager.loadVariant(Self.thumbnail(origin.url("/stop.jpg"))) }
            #expect(await origin.waitForRequests("/stop.jpg"))
            stopped.cancel()
            await #expect(throws: ImageError.cancelled) { try await stopped.value }
            #expect(await origin.waitForAbort("/stop.jpg"), "the download stopped with its last caller")

            let gate = TestOriginGate()
            origin.register("/keep.jpg", .gated(gate, then: .image(Self.jpeg, contentType: "image/jpeg")))
            let request = Self.thumbnail(origin.url("/keep.jpg"))
            let kept = Task { try await manager.loadVariant(request.adding(.continueInBackground)) }
            #expect(await gate.waitForArrivals(1))
            kept.cancel()
            await #expect(throws: ImageError.cancelled) { try await kept.value }
            gate.open()
            #expect(await made.wait(for: 1))
            let key = try #require(manager.cacheKey(for: request))
            #expect(await eventually { manager.cache.variantFromMemory(forKey: key) != nil })
            #expect(coder.encodeCount == 1)
            #expect(made.count == 1)
        }
    }

    @Test("an encoded variant's metadata round-trips through a disk entry")
    func entryRoundTrip() throws {
        let variant = EncodedVariant(
            data: Self.jpeg, pixelSize: PixelSize(width: 800, height: 600), createdAt: Date(timeIntervalSince1970: 1_700_000_000),
            sourceETag: "\"s\"", sourceLastModified: "Sun, 22 Nov 2026 00:00:00 GMT"
        )
        #expect(variant.etag.count == 34 && variant.etag.hasPrefix("\"") && variant.etag.hasSuffix("\""))
        #expect(variant.format == .jpeg && variant.count == Self.jpeg.count)
        let trailer = DiskEntryFormat.trailer(for: Self.jpeg, metadata: variant.metadata, key: "k")
        let file = Self.jpeg + Data(trailer)
        let read = try #require(file.withUnsafeBytes { bytes -> CacheMetadata? in
            guard case .entry(let dataLength, let metadataLength) = DiskEntryFormat.layout(of: bytes) else { return nil }
            return DiskEntryFormat.metadata(from: UnsafeRawBufferPointer(rebasing: bytes[dataLength..<dataLength + metadataLength]))?.metadata
        })
        let back = try #require(EncodedVariant(entry: DiskCacheEntry(data: Self.jpeg, metadata: read)))
        #expect(back.etag == variant.etag && back.pixelSize == variant.pixelSize && back.createdAt == variant.createdAt)
        #expect(back.sourceETag == "\"s\"" && back.sourceLastModified == "Sun, 22 Nov 2026 00:00:00 GMT")
        #expect(EncodedVariant(entry: DiskCacheEntry(data: Self.jpeg, metadata: CacheMetadata())) == nil, "a plain entry is no variant")
    }
}
