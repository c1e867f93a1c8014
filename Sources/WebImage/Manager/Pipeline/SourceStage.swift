import Foundation
import Tracing

/// A request's source bytes and where they came from.
struct SourceData: Sendable {
    /// The bytes; empty for a decoded source found in memory (``CacheType/memory``).
    let data: Data
    /// What was stored with them, or what the response said of them.
    let metadata: CacheMetadata
    /// ``CacheType/none`` when loaded for this request, else the tier it came from.
    let cacheType: CacheType
    /// Whether the loaded bytes were kept in the source cache (a failure removes them).
    var stored = false

    /// The bytes of a source cache entry.
    init(cached entry: DiskCacheEntry) {
        self.init(data: entry.data, metadata: entry.metadata, cacheType: .disk)
    }

    init(data: Data, metadata: CacheMetadata, cacheType: CacheType) {
        self.data = data
        self.metadata = metadata
        self.cacheType = cacheType
    }

    /// A decoded source found in memory: no bytes.
    static let inMemory = SourceData(data: Data(), metadata: CacheMetadata(), cacheType: .memory)
}

/// How making something from a source went, on the coding thread.
enum SourceOutcome<T: Sendable>: Sendable {
    /// Made.
    case made(T)
    /// The cached bytes are not an image: they are removed and the source loaded afresh.
    case unusable(ImageError)
    /// Failed for another reason.
    case failed(SourceData, ImageError)
}

extension ImagePipeline {
    /// Runs `then` with the request's source bytes on a coding thread and returns its
    /// result. The bytes come from the source cache (read in the same visit to the coding
    /// thread as `then`, when the cache reads synchronously) or from the loader, once for
    /// every request that needs them at once; loaded bytes are kept in the source cache
    /// before `then` runs.
    ///
    /// Cached bytes that `then` finds are not an image are removed and the source is
    /// loaded afresh. When `then` fails on loaded bytes, the manager's rule decides whether
    /// the failure blocks the URL, and one that says something about the source takes the
    /// bytes out of the cache again.
    func withSource<T: Sendable>(
        _ request: ResolvedRequest, run: StageRun, then: @escaping @Sendable (SourceData) throws(ImageError) -> T
    ) async throws(ImageError) -> T {
        var fresh = false
        while true {
            let key = fresh ? request.freshSourceStageKey : request.sourceStageKey
            let outcome = try await sources.obtain(key, run: run) { owned, run throws(ImageError) -> SourceOutcome<T> in
                try await driveSource(owned, request, fresh: fresh, run: run, then: then)
            } join: { source throws(ImageError) -> SourceOutcome<T> in
                try await run.code { Self.apply(then, to: source, request) }
            }
            switch outcome {
            case .made(let value):
                return value
            case .unusable(let error):
                if let originalKey = request.originalKey { await request.sourceCache.remove(forKey: originalKey, cacheType: .disk) }
                if request.request.options.contains(.fromCacheOnly) { throw .notInCache(request.key ?? request.url.absoluteString) }
                if fresh { throw error }
                fresh = true
            case .failed(let source, let error):
                await sourceFailed(source, error, request)
                throw error
            }
        }
    }

    /// What a failure on `source` leaves: loaded bytes failing blocks the URL when the
    /// manager's rule says so, and bytes that failed for what they are do not stay cached,
    /// blocked or not.
    func sourceFailed(_ source: SourceData, _ error: ImageError, _ request: ResolvedRequest) async {
        guard source.cacheType == .none else { return }
        recordFailure(request.url, error)
        if error.blocksURL, source.stored, let originalKey = request.originalKey {
            await request.sourceCache.remove(forKey: originalKey, cacheType: .disk)
        }
    }

    /// On the coding thread: `then` with `source`, within the request's source size limit.
    private static func apply<T>(
        _ then: (SourceData) throws(ImageError) -> T, to source: SourceData, _ request: ResolvedRequest
    ) -> SourceOutcome<T> {
        if let limit = request.request.maxSourceBytes, source.data.count > limit {
            return .failed(source, .bodyTooLarge(limit: limit))
        }
        do throws(ImageError) {
            return .made(try then(source))
        } catch {
            if source.cacheType == .disk, case .badImageData = error { return .unusable(error) }
            return .failed(source, error)
        }
    }

    /// Drives new source work: the cached bytes, else a load kept in the source cache.
    private func driveSource<T: Sendable>(
        _ owned: OwnedWork<SourceStageKey, SourceData>, _ request: ResolvedRequest, fresh: Bool, run: StageRun,
        then: @escaping @Sendable (SourceData) throws(ImageError) -> T
    ) async throws(ImageError) -> SourceOutcome<T> {
        let cache = request.sourceCache
        if !fresh, request.revalidating == nil, request.sourceQuery.includesDisk, let originalKey = request.originalKey {
            if run.cacheIOOnCodingThreads {
                // One visit to the coding thread: the read, and what is made of it.
                let trace = run.trace
                let read = try await run.code { () throws(ImageError) -> SourceOutcome<T>? in
                    let entry = LibrarySpans.run("webimage.cache.lookup", parent: trace) { span -> DiskCacheEntry? in
                        let entry = cache.diskTier.entrySync(forKey: originalKey)
                        Self.describeLookup(span, kind: "original", hit: entry != nil)
                        return entry
                    }
                    guard let entry else { return nil }
                    let source = SourceData(cached: entry)
                    owned.finish(source)
                    return Self.apply(then, to: source, request)
                }
                if let read { return read }
                // A miss: the download ahead waits outside the work slot the read took.
                run.slot?.release()
            } else if let entry = await LibrarySpans.run("webimage.cache.lookup", { span async -> DiskCacheEntry? in
                let entry = await cache.entry(forKey: originalKey)
                Self.describeLookup(span, kind: "original", hit: entry != nil)
                return entry
            }) {
                let source = SourceData(cached: entry)
                owned.finish(source)
                return try await run.code { Self.apply(then, to: source, request) }
            }
        }
        if request.request.options.contains(.fromCacheOnly) { throw .notInCache(request.key ?? request.url.absoluteString) }
        var source = try await load(request, run: run)
        if request.storesSource, let originalKey = request.originalKey {
            source.stored = true
            if run.cacheIOOnCodingThreads {
                // Kept before anyone gets the bytes, so a request that starts later finds
                // them; written in the visit to the coding thread that makes the result.
                let (loaded, trace) = (source, run.trace)
                return try await run.code { () throws(ImageError) -> SourceOutcome<T> in
                    Self.storeSync(loaded.data, forKey: originalKey, metadata: loaded.metadata, in: cache, kind: "original", trace: trace)
                    owned.finish(loaded)
                    return Self.apply(then, to: loaded, request)
                }
            }
            await Self.store(source.data, forKey: originalKey, metadata: source.metadata, in: cache, kind: "original")
        }
        owned.finish(source)
        let loaded = source
        return try await run.code { Self.apply(then, to: loaded, request) }
    }

    /// Loads the source: the custom closure, or the loader, in a `webimage.download` span.
    /// A failure blocks the URL when the manager's rule says so.
    private func load(_ request: ResolvedRequest, run: StageRun) async throws(ImageError) -> SourceData {
        if Task.isCancelled { throw .cancelled }
        // A URL no loader handles says nothing about the URL, and a loader for its scheme
        // may be added at any time: it is not blocked.
        if case .url(let url) = request.request.source, !request.loader.canLoad(url) { throw .invalidURL(url.absoluteString) }
        do throws(ImageError) {
            switch request.request.source {
            case .custom(_, let load):
                let data = try await load()
                if let limit = request.request.maxSourceBytes, data.count > limit { throw .bodyTooLarge(limit: limit) }
                return SourceData(data: data, metadata: CacheMetadata(), cacheType: .none)
            case .url(let url):
                let (loader, options, progress) = (request.loader, request.downloadOptions, run.events.handler)
                // The span is current during the load: the origin's `traceparent` names it.
                let response = try await LibrarySpans.run("webimage.download") { span throws(ImageError) -> DownloadResponse in
                    span.attributes["server.address"] = url.host ?? ""
                    if let port = url.port { span.attributes["server.port"] = port }
                    span.attributes["url.scheme"] = url.scheme ?? ""
                    let response = try await loader.load(url, options: options, progress: progress)
                    span.attributes["http.response.status_code"] = response.head.statusCode
                    span.attributes["webimage.bytes"] = response.data.count
                    return response
                }
                var metadata = CacheMetadata(response: response.head)
                metadata.sourceURL = url
                return SourceData(data: response.data, metadata: metadata, cacheType: .none)
            }
        } catch {
            recordFailure(request.url, error)
            throw error
        }
    }

    // MARK: Cache writes and spans

    /// Writes `data` to the disk of `cache` in a `webimage.store` span; a failed write is
    /// the cache's to report.
    static func store(_ data: Data, forKey key: String, metadata: CacheMetadata, in cache: any ImageCaching, kind: String) async {
        await LibrarySpans.run("webimage.store") { span async in
            describeStore(span, kind: kind, bytes: data.count)
            try? await cache.store(nil, data: data, forKey: key, metadata: metadata, cacheType: .disk)
        }
    }

    /// On a coding thread: writes `data` to the disk tier of `cache` in a `webimage.store`
    /// span. A failed write is the cache's to report.
    static func storeSync(
        _ data: Data, forKey key: String, metadata: CacheMetadata, in cache: any ImageCaching, kind: String, trace: ServiceContext?
    ) {
        LibrarySpans.run("webimage.store", parent: trace) { span in
            describeStore(span, kind: kind, bytes: data.count)
            try? cache.diskTier.storeSync(data, forKey: key, metadata: metadata)
        }
    }

    /// Names a cache lookup's span: which kind of entry, and whether it was found.
    static func describeLookup(_ span: any Span, kind: String, hit: Bool) {
        span.attributes["webimage.cache.kind"] = kind
        span.attributes["webimage.cache.hit"] = hit
    }

    /// Names a disk write's span: which kind of entry, and how many bytes.
    static func describeStore(_ span: any Span, kind: String, bytes: Int) {
        span.attributes["webimage.cache.kind"] = kind
        span.attributes["webimage.bytes"] = bytes
    }
}
