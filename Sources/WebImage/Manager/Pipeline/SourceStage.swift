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
    /// For bytes loaded now: the response they came with.
    var transfer: SourceTransfer?

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
        recordFailure(request.sourceURL, error)
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

    /// What a lookup of the source cache found, read on a coding thread.
    private enum CachedRead<T: Sendable>: Sendable {
        /// Nothing: the source is loaded.
        case miss
        /// Fresh bytes, and what was made of them.
        case made(SourceOutcome<T>)
        /// Bytes past their freshness but within the stale window, and what was made of
        /// them: they are revalidated in the background.
        case servedStale(SourceOutcome<T>, DiskCacheEntry)
        /// Bytes past their freshness, revalidated before they are used.
        case stale(DiskCacheEntry)
    }

    /// Drives new source work: the cached bytes while they are fresh (or served while they
    /// are revalidated), else a load kept in the source cache — conditional, with the
    /// cached bytes' validators, when they are stale.
    private func driveSource<T: Sendable>(
        _ owned: OwnedWork<SourceStageKey, SourceData>, _ request: ResolvedRequest, fresh: Bool, run: StageRun,
        then: @escaping @Sendable (SourceData) throws(ImageError) -> T
    ) async throws(ImageError) -> SourceOutcome<T> {
        let cache = request.sourceCache
        var stale: DiskCacheEntry?
        if !fresh, request.revalidating == nil, request.sourceQuery.includesDisk, let originalKey = request.originalKey {
            let (freshness, now) = (request.sourceFreshness, request.now)
            if run.cacheIOOnCodingThreads {
                // One visit to the coding thread: the read, and what is made of it.
                let trace = run.trace
                let read = try await run.code { () throws(ImageError) -> CachedRead<T> in
                    let entry = LibrarySpans.run("webimage.cache.lookup", parent: trace) { span -> DiskCacheEntry? in
                        let entry = cache.diskTier.entrySync(forKey: originalKey)
                        Self.describeLookup(span, kind: "original", hit: entry != nil)
                        return entry
                    }
                    guard let entry else { return .miss }
                    let state = freshness.state(of: entry.metadata, clock: now)
                    guard state != .stale else { return .stale(entry) }
                    let source = SourceData(cached: entry)
                    owned.finish(source)
                    let outcome = Self.apply(then, to: source, request)
                    return state == .fresh ? .made(outcome) : .servedStale(outcome, entry)
                }
                switch read {
                case .made(let outcome):
                    return outcome
                case .servedStale(let outcome, let entry):
                    revalidateInBackground(entry, request)
                    return outcome
                case .stale(let entry):
                    stale = entry
                case .miss:
                    break
                }
                // The download ahead waits outside the work slot the read took.
                run.slot?.release()
            } else if let entry = await LibrarySpans.run("webimage.cache.lookup", { span async -> DiskCacheEntry? in
                let entry = await cache.entry(forKey: originalKey)
                Self.describeLookup(span, kind: "original", hit: entry != nil)
                return entry
            }) {
                let state = freshness.state(of: entry.metadata, clock: now)
                if state != .stale {
                    if state == .servableWhileRevalidating { revalidateInBackground(entry, request) }
                    let source = SourceData(cached: entry)
                    owned.finish(source)
                    return try await run.code { Self.apply(then, to: source, request) }
                }
                stale = entry
            }
        }
        if request.request.options.contains(.fromCacheOnly) {
            // Stale bytes are all there is: they are used as they are.
            if let stale {
                let source = SourceData(cached: stale)
                owned.finish(source)
                return try await run.code { Self.apply(then, to: source, request) }
            }
            throw .notInCache(request.key ?? request.url.absoluteString)
        }
        var source: SourceData
        if let stale, let originalKey = request.originalKey {
            do throws(ImageError) {
                source = try await load(request, run: run, validating: stale.metadata)
            } catch .cacheNotModified {
                let renewed = await Self.renew(stale, forKey: originalKey, in: cache, at: request.now())
                owned.finish(renewed)
                return try await run.code { Self.apply(then, to: renewed, request) }
            }
        } else {
            source = try await load(request, run: run)
        }
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
    /// With `validating`, the stale bytes' validators go out as `If-None-Match` /
    /// `If-Modified-Since`, and an unchanged source throws ``ImageError/cacheNotModified``.
    private func load(_ request: ResolvedRequest, run: StageRun, validating stale: CacheMetadata? = nil) async throws(ImageError) -> SourceData {
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
                var options = request.downloadOptions
                if let stale { options.makeConditional(etag: stale.etag, lastModified: stale.lastModified) }
                let (loader, progress) = (request.loader, run.events.handler)
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
                var metadata = CacheMetadata(response: response.head, now: request.now())
                metadata.sourceURL = url
                var source = SourceData(data: response.data, metadata: metadata, cacheType: .none)
                source.transfer = SourceTransfer(head: response.head, metrics: response.metrics)
                return source
            }
        } catch {
            recordFailure(request.sourceURL, error)
            throw error
        }
    }

    // MARK: Freshness

    /// The stale bytes the source said are unchanged, kept for the lifetime they were
    /// stored with from `now`.
    private static func renew(_ entry: DiskCacheEntry, forKey key: String, in cache: any ImageCaching, at now: Date) async -> SourceData {
        let metadata = renewed(entry.metadata, at: now)
        let disk = cache.diskTier
        _ = await BlockingPools.run(on: BlockingPools.io) { () -> Bool? in try? disk.updateMetadataSync(metadata, forKey: key) }
        return SourceData(data: entry.data, metadata: metadata, cacheType: .disk)
    }

    /// `metadata` renewed at `now` for the lifetime it was stored with.
    static func renewed(_ metadata: CacheMetadata, at now: Date) -> CacheMetadata {
        var renewed = metadata
        if let expiration = metadata.expirationDate {
            renewed.expirationDate = now.addingTimeInterval(max(0, expiration.timeIntervalSince(metadata.storedDate)))
        }
        renewed.storedDate = now
        return renewed
    }

    /// After a revalidation the source answered with `304 Not Modified`: the request's
    /// cached source and cached result renewed, each for the lifetime it was stored with.
    func renewCached(_ request: ResolvedRequest) async {
        let now = request.now()
        var entries: [(any ImageCaching, String)] = []
        if let originalKey = request.originalKey { entries.append((request.sourceCache, originalKey)) }
        if let key = request.key, key != request.originalKey || InstanceIdentity.of(request.sourceCache) != InstanceIdentity.of(request.cache) { entries.append((request.cache, key)) }
        for (cache, key) in entries {
            let disk = cache.diskTier
            _ = await BlockingPools.run(on: BlockingPools.io) { () -> Bool? in
                guard let metadata = disk.entrySync(forKey: key)?.metadata else { return false }
                return try? disk.updateMetadataSync(Self.renewed(metadata, at: now), forKey: key)
            }
        }
    }

    /// Revalidates stale bytes that are being served, off every caller's way: renewed when
    /// the source says they are unchanged, replaced by what it sends otherwise. One at a
    /// time per source; a failure leaves the stale bytes.
    private func revalidateInBackground(_ entry: DiskCacheEntry, _ request: ResolvedRequest) {
        guard let key = request.originalKey else { return }
        let cache = request.sourceCache
        let revalidation = BackgroundRevalidation(cache: InstanceIdentity.of(cache), key: key)
        guard backgroundRevalidations.withLock({ $0.insert(revalidation).inserted }) else { return }
        Task.detached { [self] in
            defer { _ = backgroundRevalidations.withLock { $0.remove(revalidation) } }
            let run = StageRun(threads: BlockingPools.coding, slot: nil, events: .none, trace: nil, cacheIOOnCodingThreads: false)
            do throws(ImageError) {
                let source = try await load(request, run: run, validating: entry.metadata)
                if request.storesSource { await Self.store(source.data, forKey: key, metadata: source.metadata, in: cache, kind: "original") }
            } catch .cacheNotModified {
                _ = await Self.renew(entry, forKey: key, in: cache, at: request.now())
            } catch {
                return
            }
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
