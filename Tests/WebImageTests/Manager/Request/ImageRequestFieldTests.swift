import Foundation
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

/// One field of ``ImageRequest`` set on a request: where it must be refused (naming it)
/// and, everywhere else, the effect it must have.
struct RequestFieldCase: Sendable, CustomTestStringConvertible {
    typealias SetUp = @Sendable (RequestFieldHarness, inout ImageRequest, RequestPath) async throws -> Void
    typealias Check = @Sendable (RequestFieldHarness, ImageRequest, RequestPath, Result<RequestOutcome, ImageError>) async throws -> Void

    /// The field, as ``ImageError/invalidRequest(field:reason:)`` names it.
    let field: String
    /// The outputs it cannot apply to.
    var refusedOn: Set<RequestPath> = []
    /// The field the refusal names on an output, when another field set with it is
    /// refused first there.
    var refusalNames: [RequestPath: String] = [:]
    /// The source: `still.jpg` or `animated.gif`.
    var source = "still.jpg"
    /// Whether each of the cache's disk writes takes 50 ms.
    var slowCacheWrites = false
    let setUp: SetUp
    var check: Check = { _, _, _, _ in }

    var testDescription: String { field }

    init(_ field: String, refusedOn: Set<RequestPath> = [], refusalNames: [RequestPath: String] = [:], source: String = "still.jpg",
         slowCacheWrites: Bool = false, setUp: @escaping SetUp, check: @escaping Check) {
        self.field = field
        self.refusedOn = refusedOn
        self.refusalNames = refusalNames
        self.source = source
        self.slowCacheWrites = slowCacheWrites
        self.setUp = setUp
        self.check = check
    }
}

/// Every field of an ``ImageRequest`` set on each of the five outputs: a field is either
/// honoured (its effect shows in what the loader, coder or cache were asked, or in the
/// result) or refused at once with an error naming it, before any load. A field the
/// pipeline silently ignored would fail its row.
@Suite("ImageRequest: every field on every path")
struct ImageRequestFieldTests {
    static let decoding: Set<RequestPath> = [.data, .details]
    static let imagesOnly: Set<RequestPath> = [.data, .encoded, .details, .thumbHash]
    static let encodedOutputs: Set<RequestPath> = [.encoded, .details, .thumbHash]
    static let box = PixelSize(width: 16, height: 16)

    static func succeeded(_ outcome: Result<RequestOutcome, ImageError>) throws -> RequestOutcome {
        try outcome.get()
    }

    /// Runs the request once first, so that its result (and source) are cached.
    static func warm(_ harness: RequestFieldHarness, _ request: ImageRequest) async throws {
        _ = try await harness.load(request).get()
    }

    static let cases: [RequestFieldCase] = processingCases + optionCases + cachingCases + loadingCases

    static let processingCases: [RequestFieldCase] = [
        RequestFieldCase("processing.thumbnailPixelSize", refusedOn: decoding) { _, request, _ in
            request.processing.thumbnailPixelSize = box
        } check: { harness, _, path, outcome in
            let outcome = try succeeded(outcome)
            #expect(harness.coder.decodes.first?.thumbnailPixelSize == box)
            if path != .thumbHash { #expect(outcome.pixelSize == PixelSize(width: 16, height: 12)) }
        },
        RequestFieldCase(
            "processing.preserveAspectRatio", refusedOn: decoding,
            refusalNames: [.data: "processing.thumbnailPixelSize", .details: "processing.thumbnailPixelSize"]
        ) { _, request, _ in
            request.processing.thumbnailPixelSize = box
            request.processing.preserveAspectRatio = false
        } check: { harness, _, path, outcome in
            let outcome = try succeeded(outcome)
            #expect(harness.coder.decodes.first?.preserveAspectRatio == false)
            if path != .thumbHash { #expect(outcome.pixelSize == box) }
        },
        RequestFieldCase("processing.preserveAspectRatio", refusedOn: Set(RequestPath.allCases)) { _, request, _ in
            request.processing.preserveAspectRatio = false
        } check: { _, _, _, _ in },
        RequestFieldCase("processing.transformer", refusedOn: decoding) { _, request, _ in
            request.processing.transformer = CountingFillTransformer()
        } check: { _, request, path, outcome in
            let outcome = try succeeded(outcome)
            #expect((request.processing.transformer as? CountingFillTransformer)?.calls == 1)
            if path != .thumbHash { #expect(outcome.pixelSize == PixelSize(width: 10, height: 10)) }
        },
        RequestFieldCase(
            "processing.transformsAnimations", refusedOn: decoding.union([.thumbHash]),
            refusalNames: [.data: "processing.transformer", .details: "processing.transformer"], source: "animated.gif"
        ) { _, request, _ in
            request.processing.transformer = CountingFillTransformer()
            request.processing.transformsAnimations = false
        } check: { _, request, path, outcome in
            let outcome = try succeeded(outcome)
            #expect((request.processing.transformer as? CountingFillTransformer)?.calls == 0, "the animation is left as it is")
            #expect(outcome.pixelSize == PixelSize(width: 40, height: 30))
            if case .image(let result) = outcome { #expect(result.image?.frameCount == 3) }
        },
        RequestFieldCase("processing.transformsAnimations", refusedOn: Set(RequestPath.allCases)) { _, request, _ in
            request.processing.transformsAnimations = false
        } check: { _, _, _, _ in },
        RequestFieldCase("processing.firstFrameOnly", refusedOn: decoding, source: "animated.gif") { _, request, _ in
            request.processing.firstFrameOnly = true
        } check: { harness, _, _, outcome in
            let outcome = try succeeded(outcome)
            #expect(harness.coder.decodes.first?.firstFrameOnly == true)
            if case .image(let result) = outcome { #expect(result.image?.frameCount == 1) }
        },
        RequestFieldCase("processing.scaleDownLimitBytes", refusedOn: decoding) { _, request, _ in
            request.processing.scaleDownLimitBytes = 4_000
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.coder.decodes.first?.scaleDownLimitBytes == 4_000)
        },
        RequestFieldCase("processing.preferEmbeddedThumbnail", refusedOn: decoding) { _, request, _ in
            request.processing.preferEmbeddedThumbnail = true
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.coder.decodes.first?.preferEmbeddedThumbnail == true)
        },
        RequestFieldCase("processing.scaleFactor", refusedOn: imagesOnly) { _, request, _ in
            request.processing.scaleFactor = 2.5
        } check: { harness, request, _, outcome in
            guard case .image(let result) = try succeeded(outcome) else { return }
            #expect(result.image?.scale == 2.5)
            let hit = try await harness.manager.loadImage(request)
            #expect(hit.cacheType == .memory && hit.image?.scale == 2.5, "a memory hit at the request's scale")
        },
    ]

    static let optionCases: [RequestFieldCase] = [
        RequestFieldCase("priority") { _, request, _ in
            request.priority = .high
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.loader.lastOptions?.priority == .high)
        },
        RequestFieldCase("options.retryFailed") { harness, request, _ in
            harness.manager.failedURLs.record(request.url, error: .badImageData("an earlier failure"))
            request.options.insert(.retryFailed)
        } check: { harness, request, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.loader.loads.count == 1)
            #expect(!harness.manager.failedURLs.isBlocked(request.url), "success unblocks it")
        },
        RequestFieldCase("options.progressiveLoad", refusedOn: imagesOnly) { _, request, _ in
            request.options.insert(.progressiveLoad)
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.loader.lastOptions?.wantsPartialData == true)
        },
        RequestFieldCase("options.refreshCached") { harness, request, _ in
            try await warm(harness, request)
            request.options.insert(.refreshCached)
        } check: { harness, _, _, outcome in
            let value = try succeeded(outcome)
            #expect(value.cacheType != CacheType.none, "the source answered 304: the cached result")
            #expect(harness.loader.loads.count == 2)
            #expect(harness.loader.lastOptions?.headers["If-None-Match"] == [RecordingLoader.etag])
        },
        RequestFieldCase("options.continueInBackground") { harness, request, _ in
            harness.loader.closeGate()
            request.options.insert(.continueInBackground)
            let started = request
            let waiting = Task { await harness.load(started) }
            #expect(await eventually { harness.loader.loads.count == 1 })
            waiting.cancel()
            guard case .failure(.cancelled) = await waiting.value else { Issue.record("the caller did not leave"); return }
            harness.loader.openGate()
            #expect(await eventually { await harness.isCached(started) }, "finished and kept though nobody waits")
            #expect(await eventually { harness.manager.pipeline.inFlightCount == 0 })
            // The check below runs on the cached result.
            request.options.remove(.continueInBackground)
        } check: { harness, _, _, outcome in
            let value = try succeeded(outcome)
            #expect(value.cacheType != CacheType.none)
            #expect(harness.loader.loads.count == 1)
        },
        RequestFieldCase("options.handleCookies") { _, request, _ in
            request.options.insert(.handleCookies)
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.loader.lastOptions?.handleCookies == true)
        },
        RequestFieldCase("options.allowInvalidSSLCertificates") { _, request, _ in
            request.options.insert(.allowInvalidSSLCertificates)
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.loader.lastOptions?.allowInvalidSSLCertificates == true)
        },
        RequestFieldCase("options.fromCacheOnly") { _, request, _ in
            request.options.insert(.fromCacheOnly)
        } check: { harness, _, _, outcome in
            guard case .failure(.notInCache) = outcome else { Issue.record("expected notInCache, got \(outcome)"); return }
            #expect(harness.loader.loads.isEmpty)
        },
        RequestFieldCase("options.waitStoreCache", slowCacheWrites: true) { _, request, path in
            request.options.insert(.waitStoreCache)
            // A processed image is encoded for the disk after the result is handed out.
            if path == .image { request.processing.transformer = CountingFillTransformer() }
        } check: { harness, request, _, outcome in
            _ = try succeeded(outcome)
            let key = try #require(harness.manager.cacheKey(for: request))
            #expect(harness.cache.onDisk(key), "on disk when the load returns, though the cache writes slowly")
        },
        RequestFieldCase("options.queryMemoryData", refusedOn: imagesOnly) { harness, request, _ in
            try await warm(harness, request)
            request.options.insert(.queryMemoryData)
        } check: { _, _, _, outcome in
            guard case .image(let result) = try succeeded(outcome) else { return }
            #expect(result.cacheType == .memory && result.data == RequestFieldHarness.still)
        },
        RequestFieldCase(
            "options.queryMemoryDataSync", refusedOn: imagesOnly,
            refusalNames: Dictionary(uniqueKeysWithValues: imagesOnly.map { ($0, "options.queryMemoryData") })
        ) { harness, request, _ in
            try await warm(harness, request)
            request.options.formUnion([.queryMemoryData, .queryMemoryDataSync])
        } check: { harness, request, _, _ in
            let completed = InlineLocked<ImageResult?>(nil)
            harness.manager.loadImage(request) { result in completed.withLock { $0 = try? result.get() } }
            #expect(completed.withLock { $0 }?.data == RequestFieldHarness.still, "the bytes came before loadImage returned")
        },
        RequestFieldCase("options.queryMemoryDataSync", refusedOn: Set(RequestPath.allCases)) { _, request, _ in
            request.options.insert(.queryMemoryDataSync)
        } check: { _, _, _, _ in },
        RequestFieldCase("options.queryDiskDataSync") { harness, request, _ in
            try await warm(harness, request)
            await harness.cache.clear(.memory)
            request.options.insert(.queryDiskDataSync)
        } check: { harness, request, path, outcome in
            let value = try succeeded(outcome)
            #expect(value.cacheType == .disk)
            let key = try #require(harness.manager.cacheKey(for: request))
            #expect(harness.cache.keysReadSynchronously.contains(key), "read on the calling thread")
            if path.isImage {
                let completed = InlineLocked(false)
                harness.manager.loadImage(request) { result in if case .success = result { completed.withLock { $0 = true } } }
                #expect(completed.withLock { $0 }, "a disk hit completes before loadImage returns")
            }
        },
    ]

    static let cachingCases: [RequestFieldCase] = [
        RequestFieldCase("caching.cache") { _, request, _ in
            request.caching.cache = RecordingCache()
        } check: { harness, request, _, outcome in
            _ = try succeeded(outcome)
            let other = try #require(request.caching.cache as? RecordingCache)
            defer { other.removeDirectory() }
            #expect(await harness.isCached(request, in: other))
            #expect(await !harness.isCached(request))
        },
        RequestFieldCase("caching.query") { harness, request, _ in
            try await warm(harness, request)
            request.caching.query = .none
        } check: { harness, _, path, outcome in
            let value = try succeeded(outcome)
            #expect(value.cacheType == CacheType.none, "made again")
            if case .variant(let result) = value {
                #expect(result.sourceCacheType == .disk, "from the source's own cache, which the result's query does not govern")
            } else {
                #expect(harness.loader.loads.count == 2)
            }
        },
        RequestFieldCase("caching.store") { _, request, _ in
            request.caching.store = .none
        } check: { harness, request, _, outcome in
            _ = try succeeded(outcome)
            #expect(await !harness.isCached(request))
        },
        RequestFieldCase("caching.keyFilter") { _, request, _ in
            request.caching.keyFilter = { _ in "filtered" }
        } check: { harness, request, _, outcome in
            _ = try succeeded(outcome)
            let key = try #require(harness.manager.cacheKey(for: request))
            #expect(key.hasPrefix("filtered"))
            #expect(await harness.cache.contains(forKey: key) != CacheType.none)
        },
        RequestFieldCase("caching.serializer", refusedOn: encodedOutputs) { _, request, _ in
            request.caching.serializer = { _, _, _ in Data("serialized".utf8) }
        } check: { harness, request, _, outcome in
            _ = try succeeded(outcome)
            let key = try #require(harness.manager.cacheKey(for: request))
            #expect(await harness.cache.inner.diskData(forKey: key) == Data("serialized".utf8))
        },
        RequestFieldCase("caching.originals", refusedOn: [.image, .data]) { _, request, _ in
            request.caching.originals = ImageRequest.OriginalCaching(cache: RecordingCache())
        } check: { harness, request, _, outcome in
            _ = try succeeded(outcome)
            let originals = try #require(request.caching.originals?.cache as? RecordingCache)
            defer { originals.removeDirectory() }
            #expect(originals.onDisk(request.url.absoluteString), "the source kept in the originals' cache")
            #expect(!harness.cache.onDisk(request.url.absoluteString))
        },
    ]

    static let loadingCases: [RequestFieldCase] = [
        RequestFieldCase("source") { harness, request, _ in
            let calls = harness.loader
            request.source = .custom(key: "custom-source") { () throws(ImageError) -> Data in
                _ = calls
                return RequestFieldHarness.still
            }
        } check: { harness, request, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.loader.loads.isEmpty, "the closure loaded it")
            #expect(harness.manager.cacheKey(for: request)?.hasPrefix("custom-source") == true)
            #expect(await harness.isCached(request))
        },
        RequestFieldCase("limits") { _, request, _ in
            request.limits = ImageLimits(maxPixels: 100)
        } check: { _, _, _, outcome in
            guard case .failure(.imageTooLarge) = outcome else { Issue.record("expected imageTooLarge, got \(outcome)"); return }
        },
        RequestFieldCase("maxSourceBytes") { _, request, _ in
            request.maxSourceBytes = 10
        } check: { harness, _, _, outcome in
            guard case .failure(.bodyTooLarge(10)) = outcome else { Issue.record("expected bodyTooLarge, got \(outcome)"); return }
            #expect(harness.loader.lastOptions?.maxBodySize == 10)
        },
        RequestFieldCase("sourceConditions") { _, request, _ in
            request.sourceConditions = SourceConditions(ifNoneMatch: RecordingLoader.etag, ifModifiedSince: "Sun, 06 Nov 1994 08:49:37 GMT")
        } check: { harness, _, _, outcome in
            guard case .failure(.cacheNotModified) = outcome else { Issue.record("expected the source's 304, got \(outcome)"); return }
            let headers = harness.loader.lastOptions?.headers
            #expect(headers?.first(name: "If-None-Match") == RecordingLoader.etag)
            #expect(headers?.first(name: "If-Modified-Since") == "Sun, 06 Nov 1994 08:49:37 GMT")
        },
        RequestFieldCase("retryPolicy") { _, request, _ in
            request.retryPolicy = .never
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.loader.lastOptions?.retryPolicy == .never)
        },
        RequestFieldCase("requestModifier") { _, request, _ in
            request.requestModifier = { $0 }
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.loader.lastOptions?.requestModifier != nil)
        },
        RequestFieldCase("responseModifier") { _, request, _ in
            request.responseModifier = { $0 }
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.loader.lastOptions?.responseModifier != nil)
        },
        RequestFieldCase("decryptor") { _, request, _ in
            request.decryptor = { data, _ in data }
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.loader.lastOptions?.decryptor != nil)
        },
        RequestFieldCase("loader") { _, request, _ in
            let other = RecordingLoader()
            other.serve("/still.jpg", RequestFieldHarness.still)
            request.loader = other
        } check: { harness, request, _, outcome in
            _ = try succeeded(outcome)
            #expect((request.loader as? RecordingLoader)?.loads.count == 1)
            #expect(harness.loader.loads.isEmpty)
        },
        RequestFieldCase("callbackExecutor", refusedOn: encodedOutputs) { harness, request, _ in
            request.callbackExecutor = harness.executor.executor
        } check: { harness, _, _, outcome in
            _ = try succeeded(outcome)
            #expect(harness.executor.runs == 1, "the completion ran on the executor")
        },
        RequestFieldCase("coder") { _, request, _ in
            request.coder = RecordingCoder()
        } check: { harness, request, _, outcome in
            _ = try succeeded(outcome)
            #expect(((request.coder as? RecordingCoder)?.calls ?? 0) > 0)
            #expect(harness.coder.calls == 0)
        },
    ]

    // One case at a time: 180 at once would queue hundreds of decodes on the shared coding
    // threads in front of every other suite's work.
    @Test(
        "every field is honoured on each output it can apply to, and refused naming it on the others", .serialized,
        arguments: cases, RequestPath.allCases
    )
    func field(_ fieldCase: RequestFieldCase, on path: RequestPath) async throws {
        let harness = RequestFieldHarness(slowCacheWrites: fieldCase.slowCacheWrites)
        var request = harness.request(path, source: fieldCase.source)
        try await fieldCase.setUp(harness, &request, path)
        let loadsBefore = harness.loader.loads.count
        let outcome = await harness.load(request)
        guard fieldCase.refusedOn.contains(path) else {
            try await fieldCase.check(harness, request, path, outcome)
            return
        }
        guard case .failure(.invalidRequest(let field, let reason)) = outcome else {
            Issue.record("\(fieldCase.field) on \(path.rawValue): expected a refusal, got \(outcome)")
            return
        }
        #expect(field == (fieldCase.refusalNames[path] ?? fieldCase.field), "\(reason)")
        #expect(harness.loader.loads.count == loadsBefore, "refused before any load")
    }
}
