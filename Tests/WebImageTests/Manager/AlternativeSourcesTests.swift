import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// ``ImageRequest/alternativeSources`` against the test origin: which failures go on to the
/// next source, what the result says, where it is cached, and what ``FailedURLs`` records.
/// Every assertion counts requests, events or cache entries; none measures time.
@Suite("Alternative sources")
struct AlternativeSourcesTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 40, height: 30), as: .png)

    /// A manager over the origin's downloader (retries on `clock`, as `policy` says) and a
    /// throw-away cache, with its events recorded.
    static func withManager(
        policy: RetryPolicy = .never, clock: InstantClock = InstantClock(),
        _ body: (TestOrigin, ImageManager, Recorder<ImageEvent>) async throws -> Void
    ) async throws {
        try await withOriginAndDownloader(configure: {
            $0.retryPolicy = policy
            $0.retryClock = clock
        }) { origin, downloader in
            let manager = ImageManager(cache: TestCaches.make(), loader: downloader)
            defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
            let events = Recorder<ImageEvent>()
            manager.events.observe { if case .sourceFailed = $0 { events.append($0) } }
            try await body(origin, manager, events)
        }
    }

    @Test("a 404 at the primary goes on to the alternative; the result names it, is cached under the primary's key, and the next load of the primary is a hit without a request")
    func primary404AlternativeAnswers() async throws {
        try await Self.withManager { origin, manager, events in
            origin.register("/missing.png", .status(404))
            origin.register("/mirror.png", .image(Self.png))
            let (primary, mirror) = (origin.url("/missing.png"), origin.url("/mirror.png"))
            let result = try await manager.loadImage(ImageRequest(url: primary, alternativeSources: [.url(mirror)], options: .waitStoreCache))
            #expect(result.alternativeSourceIndex == 0)
            #expect(result.url == primary && result.cacheType == .none && result.image?.pixelSize == PixelSize(width: 40, height: 30))
            #expect(origin.requestCount("/missing.png") == 1 && origin.requestCount("/mirror.png") == 1)
            #expect(events.values == [.sourceFailed(url: primary, source: primary, reason: .invalidStatusCode(404), next: mirror)])

            let disk = try #require(manager.imageCache.diskCache)
            let entry = try #require(disk.entrySync(forKey: primary.absoluteString), "cached under the primary's key")
            #expect(entry.data == Self.png && entry.metadata.sourceURL == mirror, "the entry records the source that answered")
            #expect(disk.entrySync(forKey: mirror.absoluteString) == nil)
            #expect(!manager.failedURLs.isBlocked(primary), "its key holds an answer: the primary is not blocked")

            // The next load of the primary, with its alternative or without: a memory hit, then a disk hit.
            let requests = origin.totalRequestCount
            let again = try await manager.loadImage(ImageRequest(url: primary, alternativeSources: [.url(mirror)]))
            #expect(again.cacheType == .memory && again.alternativeSourceIndex == nil)
            let plain = try await manager.loadImage(ImageRequest(url: primary))
            #expect(plain.cacheType == .memory)
            manager.imageCache.clearMemory()
            let fromDisk = try await manager.loadImage(ImageRequest(url: primary))
            #expect(fromDisk.cacheType == .disk && fromDisk.data == Self.png)
            #expect(origin.totalRequestCount == requests, "no new request")
        }
    }

    @Test("sources are tried in order: a 410 and an unloadable URL go on to the next, and the result names the one that answered")
    func sourcesInOrder() async throws {
        try await Self.withManager { origin, manager, events in
            origin.register("/missing.png", .status(404))
            origin.register("/gone.png", .status(410))
            origin.register("/mirror.png", .image(Self.png))
            let primary = origin.url("/missing.png")
            let unloadable = URL(string: "nowhere://host/a.png")!
            let sources: [ImageSource] = [.url(origin.url("/gone.png")), .url(unloadable), .url(origin.url("/mirror.png"))]
            let result = try await manager.loadImage(ImageRequest(url: primary, alternativeSources: sources))
            #expect(result.alternativeSourceIndex == 2)
            #expect(events.values == [
                .sourceFailed(url: primary, source: primary, reason: .invalidStatusCode(404), next: origin.url("/gone.png")),
                .sourceFailed(url: primary, source: origin.url("/gone.png"), reason: .invalidStatusCode(410), next: unloadable),
                .sourceFailed(url: primary, source: unloadable, reason: .invalidURL(unloadable.absoluteString), next: origin.url("/mirror.png")),
            ])
            #expect(manager.failedURLs.isBlocked(origin.url("/gone.png")), "a failed alternative is recorded as any source")
            #expect(!manager.failedURLs.isBlocked(primary))
        }
    }

    @Test("HT2 a 503 at the primary is retried first; the alternative is tried after the last retry")
    func HT2_retriesBeforeTheAlternative() async throws {
        let clock = InstantClock()
        let policy = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(100), multiplier: 2, jitter: 0)
        try await Self.withManager(policy: policy, clock: clock) { origin, manager, events in
            origin.register("/busy.png", .status(503))
            origin.register("/mirror.png", .image(Self.png))
            let (primary, mirror) = (origin.url("/busy.png"), origin.url("/mirror.png"))
            let result = try await manager.loadImage(ImageRequest(url: primary, alternativeSources: [.url(mirror)]))
            #expect(result.alternativeSourceIndex == 0)
            #expect(origin.requestCount("/busy.png") == 3, "the first try and two retries")
            #expect(origin.requestCount("/mirror.png") == 1)
            #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200)])
            #expect(events.values == [.sourceFailed(url: primary, source: primary, reason: .invalidStatusCode(503), next: mirror)])
        }
    }

    @Test("bytes that are not an image at the primary go on to the alternative; they are not cached")
    func notAnImageGoesOn() async throws {
        try await Self.withManager { origin, manager, events in
            origin.register("/broken.png", .data(Data("<html>not an image</html>".utf8), contentType: "image/png"))
            origin.register("/mirror.png", .image(Self.png))
            let (primary, mirror) = (origin.url("/broken.png"), origin.url("/mirror.png"))
            let result = try await manager.loadImage(ImageRequest(url: primary, alternativeSources: [.url(mirror)], options: .waitStoreCache))
            #expect(result.alternativeSourceIndex == 0 && result.data == Self.png)
            #expect(origin.requestCount("/broken.png") == 1 && origin.requestCount("/mirror.png") == 1)
            let failure = try #require(events.values.first)
            guard case .sourceFailed(primary, primary, .badImageData, mirror) = failure else {
                Issue.record("expected a bad-image failure of the primary, got \(failure)")
                return
            }
            #expect(manager.imageCache.diskCache?.entrySync(forKey: primary.absoluteString)?.data == Self.png, "the mirror's bytes, not the broken ones")
        }
    }

    @Test("a cancelled load tries no alternative")
    func cancellationTriesNoAlternative() async throws {
        try await Self.withManager { origin, manager, events in
            let gate = TestOriginGate()
            origin.register("/slow.png", .gated(gate, then: .image(Self.png)))
            origin.register("/mirror.png", .image(Self.png))
            let request = ImageRequest(url: origin.url("/slow.png"), alternativeSources: [.url(origin.url("/mirror.png"))])
            let load = Task { () async throws(ImageError) -> ImageResult in try await manager.loadImage(request) }
            #expect(await gate.waitForArrivals(1))
            load.cancel()
            await #expect(throws: ImageError.cancelled) { try await load.value }
            gate.open()
            #expect(await origin.waitForIdle())
            #expect(origin.requestCount("/mirror.png") == 0)
            #expect(events.values.isEmpty)
            #expect(await eventually { manager.runningCount == 0 })
        }
    }

    @Test("when every source fails, the load fails with the primary's error; each failure was reported; the next load asks none of the blocked sources")
    func everySourceFails() async throws {
        try await Self.withManager { origin, manager, events in
            origin.register("/missing.png", .status(404))
            origin.register("/gone.png", .status(410))
            let (primary, gone) = (origin.url("/missing.png"), origin.url("/gone.png"))
            let request = ImageRequest(url: primary, alternativeSources: [.url(gone)])
            await #expect(throws: ImageError.invalidStatusCode(404)) { try await manager.loadImage(request) }
            #expect(events.values == [
                .sourceFailed(url: primary, source: primary, reason: .invalidStatusCode(404), next: gone),
                .sourceFailed(url: primary, source: gone, reason: .invalidStatusCode(410), next: nil),
            ])
            #expect(manager.failedURLs.isBlocked(primary) && manager.failedURLs.isBlocked(gone))

            let requests = origin.totalRequestCount
            await #expect(throws: ImageError.blockedURL(primary)) { try await manager.loadImage(request) }
            #expect(origin.totalRequestCount == requests, "both sources are blocked: neither is asked")

            // retryFailed asks them again.
            origin.register("/gone.png", .image(Self.png))
            var retrying = request
            retrying.options.insert(.retryFailed)
            let retried = try await manager.loadImage(retrying)
            #expect(retried.alternativeSourceIndex == 0)
            #expect(origin.requestCount("/missing.png") == 2 && origin.requestCount("/gone.png") == 2)
            #expect(!manager.failedURLs.isBlocked(gone), "the source that answered is unblocked")
        }
    }

    @Test("a primary blocked by an earlier load is not asked: its cache is read, then its alternative answers")
    func blockedPrimaryIsSkipped() async throws {
        try await Self.withManager { origin, manager, _ in
            origin.register("/missing.png", .status(404))
            origin.register("/mirror.png", .image(Self.png))
            let (primary, mirror) = (origin.url("/missing.png"), origin.url("/mirror.png"))
            await #expect(throws: ImageError.invalidStatusCode(404)) { try await manager.loadImage(ImageRequest(url: primary)) }
            #expect(manager.failedURLs.isBlocked(primary))
            let result = try await manager.loadImage(ImageRequest(url: primary, alternativeSources: [.url(mirror)]))
            #expect(result.alternativeSourceIndex == 0)
            #expect(origin.requestCount("/missing.png") == 1, "the blocked primary was not asked again")
            #expect(origin.requestCount("/mirror.png") == 1)
        }
    }

    @Test("cachesUnderAnsweringSource keeps the result under the alternative's key; the primary stays blocked, and the next load is a hit of the alternative without a request")
    func cachesUnderAnsweringSource() async throws {
        try await Self.withManager { origin, manager, _ in
            origin.register("/missing.png", .status(404))
            origin.register("/placeholder.png", .image(Self.png))
            let (primary, placeholder) = (origin.url("/missing.png"), origin.url("/placeholder.png"))
            var request = ImageRequest(url: primary, alternativeSources: [.url(placeholder)], options: .waitStoreCache)
            request.caching.cachesUnderAnsweringSource = true
            let loaded = try await manager.loadImage(request)
            #expect(loaded.alternativeSourceIndex == 0)
            let disk = try #require(manager.imageCache.diskCache)
            #expect(disk.entrySync(forKey: placeholder.absoluteString)?.data == Self.png)
            #expect(disk.entrySync(forKey: primary.absoluteString) == nil, "the placeholder does not stand for the primary")
            #expect(manager.failedURLs.isBlocked(primary))

            let requests = origin.totalRequestCount
            let memory = try await manager.loadImage(request)
            #expect(memory.cacheType == .memory && memory.alternativeSourceIndex == 0)
            manager.imageCache.clearMemory()
            let fromDisk = try await manager.loadImage(request)
            #expect(fromDisk.cacheType == .disk && fromDisk.alternativeSourceIndex == 0)
            #expect(origin.totalRequestCount == requests)
            await #expect(throws: ImageError.blockedURL(primary)) { try await manager.loadImage(ImageRequest(url: primary)) }
        }
    }

    @Test("an encoded output falls back too: the variant names the alternative, is cached under the primary's key, and is a memory hit next")
    func variantFallsBack() async throws {
        try await Self.withManager { origin, manager, events in
            origin.register("/missing.png", .status(404))
            origin.register("/mirror.png", .image(Self.png))
            let (primary, mirror) = (origin.url("/missing.png"), origin.url("/mirror.png"))
            let resize = ResizeTransformer(size: PixelSize(width: 20, height: 15), mode: .fill)
            let plain = ImageRequest(url: primary, processing: ImageProcessing(transformer: resize), output: .encoded(VariantEncoding(format: .fixed(.png))))
            var request = plain
            request.alternativeSources = [.url(mirror)]
            let made = try await manager.loadVariant(request)
            #expect(made.alternativeSourceIndex == 0 && made.cacheType == .none && made.variant.pixelSize == PixelSize(width: 20, height: 15))
            #expect(events.count == 1)
            let key = try #require(manager.cacheKey(for: plain))
            #expect(manager.imageCache.diskCache?.entrySync(forKey: key) != nil)
            let requests = origin.totalRequestCount
            let hit = try await manager.loadVariant(plain)
            #expect(hit.cacheType == .memory && hit.alternativeSourceIndex == nil)
            #expect(origin.totalRequestCount == requests)
        }
    }

    @Test("a custom source can be an alternative of a URL")
    func customAlternative() async throws {
        try await Self.withManager { origin, manager, _ in
            origin.register("/missing.png", .status(404))
            let request = ImageRequest(url: origin.url("/missing.png"), alternativeSources: [.custom(key: "bundled/a.png") { Self.png }])
            let result = try await manager.loadImage(request)
            #expect(result.alternativeSourceIndex == 0 && result.image?.pixelSize == PixelSize(width: 40, height: 30))
        }
    }

    @Test("fromCacheOnly loads no source, alternatives included")
    func fromCacheOnly() async throws {
        try await Self.withManager { origin, manager, _ in
            origin.register("/mirror.png", .image(Self.png))
            let primary = origin.url("/a.png")
            let request = ImageRequest(url: primary, alternativeSources: [.url(origin.url("/mirror.png"))], options: .fromCacheOnly)
            await #expect(throws: ImageError.notInCache(primary.absoluteString)) { try await manager.loadImage(request) }
            #expect(origin.totalRequestCount == 0)
        }
    }

    @Test("a failure of what is asked of the image ends the load at once: no alternative is tried")
    func requestFailuresDoNotGoOn() {
        #expect(!ImageError.invalidTransform("crop outside").triesAlternativeSource)
        #expect(!ImageError.cancelled.triesAlternativeSource && !ImageError.cacheNotModified.triesAlternativeSource)
        #expect(!ImageError.overloaded("busy").triesAlternativeSource && !ImageError.memoryBudgetExceeded(needed: 2, budget: 1).triesAlternativeSource)
        #expect(ImageError.invalidStatusCode(404).triesAlternativeSource && ImageError.timedOut("x").triesAlternativeSource)
        #expect(ImageError.forbiddenSource("loopback").triesAlternativeSource && ImageError.badImageData("x").triesAlternativeSource)
    }

    @Test("cachesUnderAnsweringSource without alternatives is refused")
    func validation() async {
        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([]))
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        var alone = ImageRequest(url: URL(string: "https://example.com/a.png")!)
        alone.caching.cachesUnderAnsweringSource = true
        await #expect(throws: ImageError.invalidRequest(
            field: "caching.cachesUnderAnsweringSource",
            reason: "applies to results loaded from alternative sources; set alternativeSources or drop it"
        )) { try await manager.loadImage(alone) }
    }
}
