import Foundation
import Synchronization

/// An ``ImageRequest`` with every default filled in from its manager: the caches, loader
/// and coder it uses, where its source is looked up and kept, and the keys of what each
/// stage makes for it.
struct ResolvedRequest: Sendable {
    let request: ImageRequest
    /// The URL results are reported under: the request's, or for an alternative source's
    /// attempt its primary source's.
    let url: URL
    /// The alternative source this request tries in place of its primary (``SourceAttempt``);
    /// `nil` for the request's own source.
    let attempt: SourceAttempt?
    /// The source's key in the caches; `nil` when the key filter says not to cache it.
    let originalKey: String?
    /// The result's key; `nil` when the source is not cached.
    let key: String?
    /// Where the result is looked up and kept.
    let cache: any ImageCaching
    /// The tiers the result is kept in: the request's, and for an encoded output within
    /// what the manager's ``ImageManager/cachePolicy`` keeps.
    let resultStore: CacheType
    /// Where the source's bytes (and, full size, its decoded image) are looked up and kept:
    /// the result's cache and tiers when the result is the source itself.
    let sourceCache: any ImageCaching
    let sourceQuery: CacheType
    let sourceStore: CacheType
    let loader: any ImageLoader
    let coder: any ImageCoder
    /// How the source is decoded.
    let plan: DecodePlan
    /// Whether the result is the source itself, cached under the source's key: a decoded
    /// image (or the bytes) without a thumbnail size or a transformer.
    let isSource: Bool
    /// Whether the source stage keeps the bytes it loads on disk: the request stores a
    /// serializer's bytes itself, after the decode.
    let storesSource: Bool
    /// The validators of a cached result being revalidated (``ImageRequest/Options/refreshCached``):
    /// the source is loaded conditionally, never read from the cache.
    let revalidating: CacheMetadata?
    /// How a URL source downloads.
    let downloadOptions: DownloadOptions
    /// The source stage's key: the bytes, where they are looked up and kept, how they load.
    let sourceStageKey: SourceStageKey
    /// The request's own coder in stage keys; `nil`: the manager's.
    let ownCoder: InstanceIdentity?
    /// Whether an animation's frames are made when the encoder reads them, one at a time,
    /// instead of decoding them all into memory: an encoded output, made once and let go.
    let framesOnDemand: Bool
    /// The ``Image/scale`` of the images handed out (``ImageOutput/image``): the request's,
    /// else the one the source's key (or, uncached, its URL) declares.
    let scale: Double
    /// What the request's decode reserves from its work slot's ``MemoryBudget``; `nil`
    /// outside a slot or without a budget.
    var memory: MemoryReservation?
    /// How long the result's cached entries are used as they are: the request's rule, else
    /// its cache's.
    let resultFreshness: CacheFreshness
    /// How long the source's cached bytes are used as they are: the request's rule, else
    /// the source cache's.
    let sourceFreshness: CacheFreshness
    /// The manager's clock.
    let now: @Sendable () -> Date

    init(_ request: ImageRequest, manager: ImageManager, revalidating: CacheMetadata? = nil, attempt: SourceAttempt? = nil) {
        self.request = request
        self.revalidating = revalidating
        self.attempt = attempt
        url = attempt?.reportedURL ?? request.url
        let caching = request.caching
        if let attempt, case .primary(let primaryKey) = attempt.keying {
            originalKey = primaryKey
        } else {
            originalKey = manager.originalKey(for: request)
        }
        key = originalKey.map { Self.resultKey($0, request: request) }
        cache = caching.cache ?? manager.cache
        resultStore = request.output.isImage ? caching.store : caching.store.intersection(manager.cachePolicy.encodedVariants)
        isSource = request.processing.isIdentity && request.output.isImage
        if isSource {
            sourceCache = cache
            sourceQuery = caching.query
            sourceStore = caching.store
        } else {
            let originals = caching.originals ?? ImageRequest.OriginalCaching()
            sourceCache = originals.cache ?? cache
            sourceQuery = originals.query
            // The manager's policy governs what making encoded outputs keeps.
            sourceStore = request.output.isImage ? originals.store : originals.store.intersection(manager.cachePolicy.originals)
        }
        resultFreshness = caching.freshness ?? cache.freshness
        sourceFreshness = caching.freshness ?? sourceCache.freshness
        now = manager.now
        loader = request.loader ?? manager.loader
        coder = request.coder ?? manager.coder
        plan = DecodePlan(request)
        ownCoder = InstanceIdentity.of(own: request.coder)
        if case .encoded = request.output { framesOnDemand = !plan.firstFrameOnly } else { framesOnDemand = false }
        storesSource = originalKey != nil && sourceStore.includesDisk && !(isSource && caching.serializer != nil)
        var download = DownloadOptions(request)
        if let revalidating {
            download.makeConditional(etag: revalidating.etag, lastModified: revalidating.lastModified)
        } else if let conditions = request.sourceConditions {
            download.makeConditional(etag: conditions.ifNoneMatch, lastModified: conditions.ifModifiedSince)
        }
        downloadOptions = download
        // Only a decoded image has a scale: other outputs skip the search of the key.
        scale = request.output != .image ? 1
            : request.processing.scaleFactor ?? ImageScale.factor(forKey: originalKey ?? request.url.absoluteString)
        sourceStageKey = Self.sourceStageKey(
            request: request, download: download, originalKey: originalKey, sourceCache: sourceCache,
            reads: sourceQuery.includesDisk && revalidating == nil, stores: storesSource
        )
    }

    /// The URL of the source loaded: the request's own, or the alternative's. Its failures
    /// are recorded under it.
    var sourceURL: URL { attempt?.sourceURL ?? url }

    /// This request revalidating the cached entry stored with `metadata`.
    func revalidating(_ metadata: CacheMetadata, manager: ImageManager) -> ResolvedRequest {
        ResolvedRequest(request, manager: manager, revalidating: metadata, attempt: attempt)
    }

    /// Whether a cached result stored with `metadata` is used as it is now; a stale one
    /// is made again from its source, which is revalidated when it is stale too.
    func isFreshResult(_ metadata: CacheMetadata) -> Bool {
        resultFreshness.isFresh(metadata, clock: now)
    }

    /// Whether a cached result stored with `metadata` is known to be fresh now
    /// (``CacheFreshness/isKnownFresh(_:at:)``): ``ImageRequest/Options/refreshCached``
    /// revalidates every other entry.
    func isKnownFreshResult(_ metadata: CacheMetadata?) -> Bool {
        metadata.map { resultFreshness.isKnownFresh($0, at: now()) } ?? false
    }

    /// `image` at the request's ``scale``.
    func scaled(_ image: Image) -> Image {
        image.scale == scale ? image : image.withScale(scale)
    }

    /// `result` with its image at the request's ``scale``.
    func scaled(_ result: ImageResult) -> ImageResult {
        guard let image = result.image, image.scale != scale else { return result }
        var scaled = result
        scaled.image = image.withScale(scale)
        return scaled
    }

    /// The result's key: the source's, with the thumbnail size and the transformer inserted
    /// for a decoded image (as SDWebImage does), or the encoded output's description.
    static func resultKey(_ originalKey: String, request: ImageRequest) -> String {
        if let part = request.variantKeyPart {
            return CacheKey.transformedKey(originalKey, transformerKey: part)
        }
        let processing = request.processing
        return CacheKey.processedKey(
            originalKey, thumbnailPixelSize: processing.thumbnailPixelSize, preserveAspectRatio: processing.preserveAspectRatio,
            transformerKey: processing.transformer?.key
        )
    }

    // MARK: Stage keys

    /// How the source loads, for the source stage's key.
    private static func sourceStageKey(
        request: ImageRequest, download: DownloadOptions, originalKey: String?, sourceCache: any ImageCaching, reads: Bool, stores: Bool
    ) -> SourceStageKey {
        let origin: SourceStageKey.Origin
        switch request.source {
        case .url(let url): origin = .url(coalescing: download.coalescingKey(for: url), partial: download.wantsPartialData)
        case .custom(let key, _): origin = .custom(key)
        }
        return SourceStageKey(
            originalKey: originalKey, cache: InstanceIdentity.of(sourceCache), reads: reads, stores: stores,
            cacheOnly: request.options.contains(.fromCacheOnly), maxSourceBytes: request.maxSourceBytes, origin: origin,
            loader: InstanceIdentity.of(own: request.loader), freshness: reads ? request.caching.freshness : nil
        )
    }

    /// The source stage's key when the cached source was found unusable: no lookup.
    var freshSourceStageKey: SourceStageKey {
        Self.sourceStageKey(
            request: request, download: downloadOptions, originalKey: originalKey, sourceCache: sourceCache, reads: false, stores: storesSource
        )
    }

    /// The decoded-image stage's key.
    var decodeStageKey: DecodeStageKey { DecodeStageKey(source: sourceStageKey, plan: plan, coder: ownCoder) }

    /// The processed-image stage's key.
    var processStageKey: ProcessStageKey {
        ProcessStageKey(decode: decodeStageKey, transformer: request.processing.transformer?.key)
    }

    /// The key under which identical image loads share one result and one store.
    var imageStageKey: ImageStageKey {
        let caching = request.caching
        let options = request.options
        return ImageStageKey(
            input: request.output == .data ? .bytes(sourceStageKey) : .processed(processStageKey),
            transformsAnimations: request.processing.transformsAnimations,
            cache: InstanceIdentity.of(cache), query: caching.query, store: caching.store,
            serializer: caching.serializer == nil ? nil : InstanceIdentity.unique(),
            waitsForStore: options.contains(.waitStoreCache), deliversPreviews: options.contains(.progressiveLoad),
            revalidates: options.contains(.refreshCached), freshness: caching.freshness,
            sourceMemory: isSource ? nil : ImageStageKey.SourceMemory(query: sourceQuery.includesMemory, store: sourceStore.includesMemory)
        )
    }

    /// The key under which identical encoded outputs share one making and one store.
    var variantStageKey: VariantStageKey {
        let conditions = request.sourceConditions.flatMap { $0.isEmpty ? nil : $0 }
        return VariantStageKey(
            output: key.map { .cached(key: $0) } ?? .uncached(url: url, variant: request.variantKeyPart ?? ""),
            cache: InstanceIdentity.of(cache), query: request.caching.query, store: resultStore,
            waitsForStore: request.options.contains(.waitStoreCache), cacheOnly: request.options.contains(.fromCacheOnly),
            revalidates: request.options.contains(.refreshCached), freshness: request.caching.freshness, conditions: conditions,
            alternative: attempt == nil ? nil : sourceStageKey.origin
        )
    }
}
