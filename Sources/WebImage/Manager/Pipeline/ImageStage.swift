import Foundation
import Tracing

extension ImagePipeline {
    /// Loads the image result of `request` (``ImageOutput/image`` or ``ImageOutput/data``)
    /// that is not a memory hit, calling `deliver` with each intermediate result (a
    /// progressive preview, a cached image about to be revalidated) and returning the final
    /// one. Identical loads running at once share one result, made and stored once.
    func loadImage(
        _ request: ResolvedRequest, manager: ImageManager,
        progress: (@Sendable (DownloadProgress) -> Void)?,
        deliver: @escaping @Sendable (ImageResult) -> Void
    ) async throws(ImageError) -> ImageResult {
        // Whoever made the image, each request hands it out at its own scale.
        let result = try await loadUnscaled(request, manager: manager, progress: progress) { deliver(request.scaled($0)) }
        return request.scaled(result)
    }

    /// ``loadImage(_:manager:progress:deliver:)`` with images at the scale they were made
    /// or cached with.
    private func loadUnscaled(
        _ request: ResolvedRequest, manager: ImageManager,
        progress: (@Sendable (DownloadProgress) -> Void)?,
        deliver: @escaping @Sendable (ImageResult) -> Void
    ) async throws(ImageError) -> ImageResult {
        let url = request.url
        let options = request.request.options
        // A memory hit whose bytes are read from disk as well.
        if options.contains(.queryMemoryData), let key = request.key, let image = ImageManager.memoryHit(of: request, key: key) {
            return ImageResult(image: image, data: await request.cache.diskData(forKey: key), cacheType: .memory, url: url)
        }
        if options.contains(.refreshCached), let cached = await cachedForRevalidation(request) {
            if options.contains(.fromCacheOnly) || request.isKnownFreshResult(cached.metadata) { return cached.result(url: url, isFinal: true) }
            // The cached image at once, as SDWebImage does; the revalidation's answer is final.
            deliver(cached.result(url: url, isFinal: false))
            let revalidation = request.revalidating(cached.metadata ?? CacheMetadata(), manager: manager)
            do throws(ImageError) {
                return try await sharedTryingSources(revalidation, manager: manager, progress: progress, deliver: deliver)
            } catch .cacheNotModified {
                await renewCached(request)
                return cached.result(url: url, isFinal: true)
            }
        }
        return try await sharedTryingSources(request, manager: manager, progress: progress, deliver: deliver)
    }

    /// The result from the request's own source, else from its alternative sources
    /// (``tryingSources(_:manager:_:)``), naming the alternative that answered. An
    /// alternative cached under its own key is looked up in memory first.
    private func sharedTryingSources(
        _ request: ResolvedRequest, manager: ImageManager,
        progress: (@Sendable (DownloadProgress) -> Void)?, deliver: @escaping @Sendable (ImageResult) -> Void
    ) async throws(ImageError) -> ImageResult {
        let (result, alternative) = try await tryingSources(request, manager: manager) { attempt throws(ImageError) -> ImageResult in
            if attempt.attempt?.cachesUnderOwnKey == true, let key = attempt.key, let image = ImageManager.memoryHit(of: attempt, key: key) {
                return ImageResult(image: image, data: nil, cacheType: .memory, url: attempt.url)
            }
            return try await self.shared(attempt, progress: progress, deliver: deliver)
        }
        guard let alternative else { return result }
        var answered = result
        answered.alternativeSourceIndex = alternative
        return answered
    }

    /// The result from the load of it running now, or from a new one.
    private func shared(
        _ request: ResolvedRequest, progress: (@Sendable (DownloadProgress) -> Void)?, deliver: @escaping @Sendable (ImageResult) -> Void
    ) async throws(ImageError) -> ImageResult {
        let url = request.url
        let events: @Sendable (ImageLoadEvent) -> Void = { event in
            switch event {
            case .progress(let report): progress?(report)
            case .preview(let image): deliver(ImageResult(image: image, data: nil, cacheType: .none, url: url, isFinal: false))
            }
        }
        let background = background(of: request)
        var (result, _) = try await images.run(
            request.imageStageKey, keepRunning: background.keepRunning, backgroundDeadline: background.deadline, progress: events
        ) { work throws(ImageError) -> ImageResult in
            try await self.makeImage(request, reportingTo: work)
        }
        // Loads of URLs the key filter maps to one key share a result: each gets its own URL.
        result.url = url
        return result
    }

    /// A cached result to revalidate, with the validators of its source.
    private struct Cached: Sendable {
        let image: Image?
        let data: Data?
        let cacheType: CacheType
        let metadata: CacheMetadata?

        func result(url: URL, isFinal: Bool) -> ImageResult {
            ImageResult(image: image, data: data, cacheType: cacheType, url: url, isFinal: isFinal)
        }
    }

    private func cachedForRevalidation(_ request: ResolvedRequest) async -> Cached? {
        let caching = request.request.caching
        guard let key = request.key, caching.query != .none else { return nil }
        if request.request.output == .data {
            guard caching.query.includesDisk, let entry = await request.cache.entry(forKey: key) else { return nil }
            return Cached(image: nil, data: entry.data, cacheType: .disk, metadata: entry.metadata)
        }
        guard let hit = await request.cache.query(forKey: key, cacheType: caching.query, decodeOptions: request.plan.requestedOptions) else {
            return nil
        }
        var (data, metadata) = (hit.data, hit.metadata)
        if hit.cacheType == .memory {
            if request.request.options.contains(.queryMemoryData) { data = await request.cache.diskData(forKey: key) }
            metadata = await request.cache.metadata(forKey: key)
        }
        return Cached(image: hit.image, data: data, cacheType: hit.cacheType, metadata: metadata)
    }

    // MARK: Making the result

    /// A disk write left for after the result is handed out: a processed image the cache
    /// encodes, off the result's way.
    private struct PendingWrite: Sendable {
        let image: Image
        let metadata: CacheMetadata
    }

    /// The result, with what is left to write.
    private struct MadeImage: Sendable {
        let result: ImageResult
        let pending: PendingWrite?
    }

    /// Makes the result: a processed result from the disk cache, else from the source
    /// (the bytes checked, or decoded and processed), kept as the request says.
    private func makeImage(_ request: ResolvedRequest, reportingTo work: SharedWork<ImageResult, ImageLoadEvent>) async throws(ImageError) -> ImageResult {
        let run = StageRun(
            threads: BlockingPools.coding, slot: nil, events: events(of: request, reportingTo: work), trace: LibrarySpans.currentContext,
            cacheIOOnCodingThreads: false
        )
        let (url, trace) = (request.url, run.trace)
        let made: MadeImage
        if !request.isSource, request.request.caching.query.includesDisk, let key = request.key,
           let hit = await cachedResult(request, key: key, run: run) {
            made = MadeImage(result: hit, pending: nil)
        } else if request.request.output == .data {
            made = try await withSource(request, run: run) { source throws(ImageError) -> MadeImage in
                _ = try request.coder.inspect(source.data, limits: request.request.limits)
                Self.storeSerialized(nil, source: source, request, trace: trace)
                var result = ImageResult(image: nil, data: source.data, cacheType: source.cacheType, url: url)
                result.transfer = source.transfer
                return MadeImage(result: result, pending: nil)
            }
        } else {
            made = try await withProcessed(request, run: run) { made throws(ImageError) -> MadeImage in
                // Kept in memory at the request's scale, so that a plain memory hit has it;
                // frames made on demand for an encoder sharing the decode are made here.
                let image = request.scaled(try made.image.inMemory())
                let processed = ProcessedImage(image: image, decoded: made.decoded, transformsAnimations: made.transformsAnimations)
                let pending = Self.store(processed, request, trace: trace)
                let source = processed.decoded.source
                // A thumbnail or a transformed image is no longer the source's bytes.
                let data = request.isSource && source.cacheType != .memory ? source.data : nil
                var result = ImageResult(image: processed.image, data: data, cacheType: source.cacheType, url: url)
                result.transfer = source.transfer
                return MadeImage(result: result, pending: pending)
            }
        }
        var write: (@Sendable () async -> Void)?
        if let pending = made.pending, let key = request.key {
            let cache = request.cache
            write = { try? await cache.store(pending.image, data: nil, forKey: key, metadata: pending.metadata, cacheType: .disk) }
        }
        await finish(request, writing: write)
        return made.result
    }

    /// Where the stages' download progress goes: to every waiter, and with
    /// ``ImageRequest/Options/progressiveLoad`` as previews of the bytes so far (never cached).
    private func events(of request: ResolvedRequest, reportingTo work: SharedWork<ImageResult, ImageLoadEvent>) -> StageEvents {
        let events = StageEvents.none.adding { work.deliver(.progress($0)) }
        guard request.downloadOptions.wantsPartialData else { return events }
        let (coder, options) = (request.coder, request.plan.requestedOptions)
        return events.adding { report in
            guard let partial = report.partialData, !partial.isEmpty, report.expectedBytes.map({ report.receivedBytes < $0 }) ?? true,
                  let preview = try? coder.decodePartial(partial, options: options)
            else { return }
            work.deliver(.preview(preview))
        }
    }

    /// A processed result from the disk cache while it is fresh, decoded and kept in memory
    /// when the request looks there too; bytes that are not an image are removed and read
    /// as a miss, and a stale result is made again.
    private func cachedResult(_ request: ResolvedRequest, key: String, run: StageRun) async -> ImageResult? {
        let cache = request.cache
        guard let entry = await cache.entry(forKey: key), request.isFreshResult(entry.metadata) else { return nil }
        let image: Image
        do throws(ImageError) {
            image = try await run.code { () throws(ImageError) -> Image in try ImageManager.decodeDiskHit(entry, key: key, for: request) }
        } catch {
            if case .badImageData = error { await cache.remove(forKey: key, cacheType: .disk) }
            return nil
        }
        return ImageResult(image: image, data: entry.data, cacheType: .disk, url: request.url)
    }

    // MARK: Keeping the result

    /// On a coding thread: keeps the processed image as the request says — in memory
    /// under the key its decode belongs to, the full-size source in memory too, and on
    /// disk (the downloaded bytes as they are, a serializer's bytes, or the processed image
    /// encoded anew by the cache once the result is handed out). Returns the disk write
    /// left to do.
    private static func store(_ processed: ProcessedImage, _ request: ResolvedRequest, trace: ServiceContext?) -> PendingWrite? {
        let caching = request.request.caching
        let source = processed.decoded.source
        let sourceBytes = source.cacheType == .memory ? nil : source.data
        guard let key = request.key else { return nil }
        // A disk hit of the source itself fills memory as a query does; a made result is stored.
        let toMemory = request.isSource && source.cacheType == .disk ? caching.query.includesMemory : caching.store.includesMemory
        if toMemory, let memoryKey = ImageCache.memoryKey(forKey: key, decodeOptions: request.plan.requestedOptions, data: sourceBytes) {
            request.cache.storeToMemory(processed.image, forKey: memoryKey)
        }
        if !request.isSource, let originalKey = request.originalKey, request.sourceStore.includesMemory, source.cacheType != .memory,
           request.plan.thumbnailPixelSize == nil, !processed.decoded.shrunk, !processed.decoded.image.makesFramesOnDemand,
           ImageCache.memoryKey(forKey: originalKey, decodeOptions: request.plan.requestedOptions, data: sourceBytes) != nil {
            request.sourceCache.storeToMemory(processed.decoded.image.withScale(ImageScale.factor(forKey: originalKey)), forKey: originalKey)
        }
        guard caching.store.includesDisk else { return nil }
        if request.isSource {
            storeSerialized(processed.image, source: source, request, trace: trace)
            return nil
        }
        // A processed result: the serializer's bytes (it sees the source's bytes unless a
        // transformer made them stale), else the image, which the cache encodes.
        let seen = request.request.processing.transformer == nil ? sourceBytes : nil
        // The source's validators and expiry: the result is as fresh as what it was made from.
        var metadata = source.cacheType == .memory ? CacheMetadata() : source.metadata
        metadata.sourceURL = nil
        guard let serialized = caching.serializer?(processed.image, seen, request.url) else {
            return PendingWrite(image: processed.image, metadata: metadata)
        }
        storeSync(serialized, forKey: key, metadata: metadata, in: request.cache, kind: "result", trace: trace)
        return nil
    }

    /// On a coding thread: the source itself as the result: a serializer's bytes for
    /// loaded bytes, on disk under the result's key (the source stage keeps them as they
    /// are otherwise).
    private static func storeSerialized(_ image: Image?, source: SourceData, _ request: ResolvedRequest, trace: ServiceContext?) {
        guard let serializer = request.request.caching.serializer, source.cacheType == .none,
              request.request.caching.store.includesDisk, let key = request.key
        else { return }
        let data = serializer(image, source.data, request.url) ?? source.data
        storeSync(data, forKey: key, metadata: source.metadata, in: request.cache, kind: "result", trace: trace)
    }
}
