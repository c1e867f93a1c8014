import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

extension ImagePrefetcherTests {
    // Prefetching ImageRequests

    static let thumbnailBox = PixelSize(width: 8, height: 8)

    /// A low-priority request for `url` decoded within ``thumbnailBox``.
    static func thumbnailRequest(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, processing: ImageProcessing(thumbnailPixelSize: thumbnailBox), priority: .low)
    }

    @Test("P3 a prefetch of thumbnail requests fills the cache that a later load of the same request is answered from")
    func P3_requestsFillTheCache() async throws {
        try await withManager { origin, manager in
            let urls = images(origin, count: 3, prefix: "thumb")
            let requests = urls.map(Self.thumbnailRequest)
            let prefetcher = ImagePrefetcher(manager: manager)
            let reports = Recorder<PrefetchProgress>()
            let done = Recorder<PrefetchResult>()
            let token = prefetcher.prefetch(requests, progress: { reports.append($0) }, completion: { done.append($0) })
            #expect(token.urls == urls)
            #expect(await done.wait(for: 1))
            #expect(done.values == [PrefetchResult(finishedCount: 3, skippedCount: 0, totalCount: 3)])
            #expect(Set(reports.values.map(\.url)) == Set(urls))
            #expect(reports.values.allSatisfy { (try? $0.outcome.get()) == CacheType.none }, "each was downloaded")
            for url in urls { #expect(origin.requestCount(url.path) == 1) }

            // The same request loads from memory, then (memory cleared) from disk: no request reaches the origin.
            let fromMemory = try await manager.loadImage(requests[0])
            #expect(fromMemory.cacheType == .memory)
            #expect(fromMemory.image?.pixelSize == PixelSize(width: 8, height: 6), "the thumbnail, not the 16x12 source")
            manager.imageCache.clearMemory()
            let fromDisk = try await manager.loadImage(requests[1])
            #expect(fromDisk.cacheType == .disk)
            #expect(fromDisk.image?.pixelSize == PixelSize(width: 8, height: 6))
            #expect(origin.totalRequestCount == 3, "the later loads asked the origin nothing")

            // A request for another result of the same source is made from the cached source.
            let fullSize = try await manager.loadImage(ImageRequest(url: urls[2]))
            #expect(fullSize.image?.pixelSize == PixelSize(width: 16, height: 12))
            #expect(origin.totalRequestCount == 3, "the source's bytes were cached with the thumbnail")
        }
    }

    @Test("P3 the awaiting and streaming forms take requests; an empty list of requests completes at once")
    func P3_requestForms() async throws {
        try await withManager { origin, manager in
            let urls = images(origin, count: 4, prefix: "forms")
            let prefetcher = ImagePrefetcher(manager: manager)
            let result = await prefetcher.prefetch(urls.prefix(2).map(Self.thumbnailRequest))
            #expect(result == PrefetchResult(finishedCount: 2, skippedCount: 0, totalCount: 2))
            var counts: [Int] = []
            for await report in prefetcher.progress(of: urls.suffix(2).map(Self.thumbnailRequest)) { counts.append(report.finishedCount) }
            #expect(counts == [1, 2])
            #expect(origin.totalRequestCount == 4)

            let completions = Recorder<PrefetchResult>()
            let token = prefetcher.prefetch([ImageRequest](), progress: nil) { completions.append($0) }
            #expect(completions.values == [PrefetchResult(finishedCount: 0, skippedCount: 0, totalCount: 0)], "before prefetch returns")
            #expect(token.isFinished)
            #expect(token.options == [] && token.context == nil, "a prefetch of requests has no SDWebImage shape")
        }
    }

    @Test("P3 a request is loaded as it is: its own priority; one that loadImage refuses is skipped with the reason")
    func P3_requestsAsTheyAre() async throws {
        let loader = RecordingLoader()
        loader.serve("/still.jpg", RequestFieldHarness.still)
        let manager = ImageManager(cache: TestCaches.make(), loader: loader)
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        let url = URL(string: "http://fields.test/still.jpg")!
        let prefetcher = ImagePrefetcher(manager: manager)
        _ = await prefetcher.prefetch([ImageRequest(url: url, priority: .high)])
        #expect(loader.lastOptions?.priority == .high, "the prefetcher adds no priority of its own")

        let encoded = ImageRequest(url: url, output: .encoded(VariantEncoding(format: .fixed(.png))))
        let reports = Recorder<PrefetchProgress>()
        let result = await withCheckedContinuation { continuation in
            prefetcher.prefetch([encoded], progress: { reports.append($0) }) { continuation.resume(returning: $0) }
        }
        #expect(result == PrefetchResult(finishedCount: 1, skippedCount: 1, totalCount: 1))
        guard case .failure(.invalidRequest(let field, _)) = reports.values.first?.outcome else {
            Issue.record("an encoded output is refused: \(String(describing: reports.values.first?.outcome))")
            return
        }
        #expect(field == "output")
    }

    @Test("P3 prefetches of equal requests share one load; one cancelling leaves it to the other")
    func P3_equalRequestsShareALoad() async throws {
        try await withManager { origin, manager in
            let gate = TestOriginGate()
            let url = images(origin, count: 1, prefix: "shared-request", gate: gate)[0]
            let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 4)
            let first = Recorder<PrefetchResult>()
            let second = Recorder<PrefetchResult>()
            let firstToken = prefetcher.prefetch([Self.thumbnailRequest(url)]) { first.append($0) }
            prefetcher.prefetch([Self.thumbnailRequest(url)]) { second.append($0) }
            #expect(await gate.waitForArrivals(1))
            firstToken.cancel()
            #expect(first.values == [PrefetchResult(finishedCount: 0, skippedCount: 0, totalCount: 1, isCancelled: true)])
            #expect(origin.abortedCount(url.path) == 0, "the other prefetch still waits for the load")
            gate.open()
            #expect(await second.wait(for: 1))
            #expect(second.values == [PrefetchResult(finishedCount: 1, skippedCount: 0, totalCount: 1)])
            #expect(origin.requestCount(url.path) == 1)
            #expect(await eventually { prefetcher.inFlightCount == 0 })
        }
    }

    @Test("P3 a list of URLs is loaded with the requests request(for:) makes; a URL that makes none is skipped")
    func P3_urlsBecomeRequests() async throws {
        try await withManager { origin, manager in
            let urls = images(origin, count: 2, prefix: "translated")
            let prefetcher = ImagePrefetcher(manager: manager, options: .waitStoreCache)
            let request = try prefetcher.request(for: urls[0])
            #expect(request.priority == .low)
            #expect(request.options == .waitStoreCache)
            #expect(request.url == urls[0])

            // A target option makes no request outside a target: that URL fails, the other loads.
            let reports = Recorder<PrefetchProgress>()
            let result = await withCheckedContinuation { continuation in
                prefetcher.prefetch(urls, options: .avoidAutoSetImage, context: nil, progress: { reports.append($0) }) {
                    continuation.resume(returning: $0)
                }
            }
            #expect(result == PrefetchResult(finishedCount: 2, skippedCount: 2, totalCount: 2))
            #expect(reports.values.allSatisfy {
                if case .failure(.invalidRequest(field: "ImageOptions.avoidAutoSetImage", _)) = $0.outcome { true } else { false }
            })
            #expect(origin.totalRequestCount == 0)
        }
    }
}

@Suite("PrefetchLoadKey: which prefetched requests share a load")
struct PrefetchLoadKeyTests {
    static let url = URL(string: "http://keys.test/a.png")!

    @Test("every field of a request tells prefetches apart: each row of the stage-key table changes the load key")
    func everyFieldOfTheStageKeyTable() {
        for row in StageKeysTests.rows {
            let base = StageKeysTests.request(row.base)
            var changed = base
            row.change(&changed)
            #expect(PrefetchLoadKey(changed, recipe: nil) != PrefetchLoadKey(base, recipe: nil), "\(row.field)")
        }
    }

    @Test("equal requests have equal keys; any field that differs tells them apart")
    func equalFields() {
        let cache = TestCaches.make()
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        let plain = ImageRequest(url: Self.url)
        #expect(PrefetchLoadKey(plain, recipe: nil) == PrefetchLoadKey(ImageRequest(url: Self.url), recipe: nil))
        let changes: [(String, (inout ImageRequest) -> Void)] = [
            ("url", { $0.source = .url(URL(string: "http://keys.test/b.png")!) }),
            ("thumbnail", { $0.processing.thumbnailPixelSize = PixelSize(width: 8, height: 8) }),
            ("transformer", { $0.processing.transformer = ResizeTransformer(size: PixelSize(width: 8, height: 8), mode: .fit) }),
            ("first frame", { $0.processing.firstFrameOnly = true }),
            ("output", { $0.output = .data }),
            ("priority", { $0.priority = .low }),
            ("options", { $0.options = .waitStoreCache }),
            ("query", { $0.caching.query = .disk }),
            ("store", { $0.caching.store = .memory }),
            ("limits", { $0.limits.maxPixels = 100 }),
            ("source bytes", { $0.maxSourceBytes = 1000 }),
            ("conditions", { $0.sourceConditions = SourceConditions(ifNoneMatch: "\"v1\"") }),
            ("retries", { $0.retryPolicy = RetryPolicy.never }),
            ("cache", { $0.caching.cache = cache }),
        ]
        for (name, change) in changes {
            var changed = plain
            change(&changed)
            #expect(PrefetchLoadKey(changed, recipe: nil) != PrefetchLoadKey(plain, recipe: nil), "\(name)")
            #expect(PrefetchLoadKey(changed, recipe: nil) == PrefetchLoadKey(changed, recipe: nil), "\(name) compares equal to itself")
        }
        // A transformer is told apart by its key, as the caches tell transformers apart.
        var resized = plain
        resized.processing.transformer = ResizeTransformer(size: PixelSize(width: 8, height: 8), mode: .fit)
        var resizedAgain = plain
        resizedAgain.processing.transformer = ResizeTransformer(size: PixelSize(width: 8, height: 8), mode: .fit)
        #expect(PrefetchLoadKey(resized, recipe: nil) == PrefetchLoadKey(resizedAgain, recipe: nil))
    }

    @Test("a request with a closure shares a key only with the requests one recipe makes for its URL")
    func closures() {
        var filtered = ImageRequest(url: Self.url)
        filtered.caching.keyFilter = { $0.path }
        #expect(PrefetchLoadKey(filtered, recipe: nil) != PrefetchLoadKey(filtered, recipe: nil), "given as it is, it is its own")
        let maker = NSObject()
        let recipe = PrefetchLoadKey.Recipe(maker: ObjectIdentifier(maker), variant: 0)
        #expect(PrefetchLoadKey(filtered, recipe: recipe) == PrefetchLoadKey(filtered, recipe: recipe))
        #expect(PrefetchLoadKey(filtered, recipe: recipe) != PrefetchLoadKey(filtered, recipe: PrefetchLoadKey.Recipe(maker: ObjectIdentifier(maker), variant: 1)))
        // Without a closure the recipe does not matter: a URL's request equals the same request given as it is.
        let plain = ImageRequest(url: Self.url, priority: .low)
        #expect(PrefetchLoadKey(plain, recipe: recipe) == PrefetchLoadKey(plain, recipe: nil))
    }

    @Test("a URL prefetch's request and the same request given as it is share a load")
    func urlAndRequestForms() throws {
        let manager = ImageManager(cache: TestCaches.make())
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        let prefetcher = ImagePrefetcher(manager: manager)
        let settings = prefetcher.urlSettings
        let made = settings.requests(for: [Self.url], manager: manager)
        let given = PrefetchRequests([ImageRequest(url: Self.url, priority: .low)])
        let madeKey = try made.request(at: 0).get().1
        let givenKey = try given.request(at: 0).get().1
        #expect(madeKey == givenKey)
        // The same options and context make the same request, whatever the closures they carry.
        var context = ImageContext()
        context.cacheKeyFilter = { $0.path }
        let withFilter = SDWebImagePrefetchSettings(options: [], context: context)
        let one = try withFilter.requests(for: [Self.url], manager: manager).request(at: 0).get().1
        let two = try withFilter.requests(for: [Self.url], manager: manager).request(at: 0).get().1
        #expect(one == two)
        let other = try SDWebImagePrefetchSettings(options: .waitStoreCache, context: context).requests(for: [Self.url], manager: manager)
            .request(at: 0).get().1
        #expect(one != other)
    }
}
