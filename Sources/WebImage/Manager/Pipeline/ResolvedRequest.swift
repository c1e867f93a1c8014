import Foundation
import Synchronization

/// An ``ImageRequest`` with every default filled in from its manager: the caches, loader
/// and coder it uses, where its source is looked up and kept, and the keys of what each
/// stage makes for it.
struct ResolvedRequest: Sendable {
    let request: ImageRequest
    /// The URL results and failures are reported under.
    let url: URL
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
    let sourceStageKey: String
    /// The ``Image/scale`` of the images handed out (``ImageOutput/image``): the request's,
    /// else the one the source's key (or, uncached, its URL) declares.
    let scale: Double
    /// What the request's decode reserves from its work slot's ``MemoryBudget``; `nil`
    /// outside a slot or without a budget.
    var memory: MemoryReservation?

    init(_ request: ImageRequest, manager: ImageManager, revalidating: CacheMetadata? = nil) {
        self.request = request
        self.revalidating = revalidating
        url = request.url
        let caching = request.caching
        originalKey = manager.originalKey(for: request)
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
        loader = request.loader ?? manager.loader
        coder = request.coder ?? manager.coder
        plan = DecodePlan(request)
        storesSource = originalKey != nil && sourceStore.includesDisk && !(isSource && caching.serializer != nil)
        var download = DownloadOptions(request)
        if let revalidating {
            if let etag = revalidating.etag { download.headers.add(name: "If-None-Match", value: etag) }
            if let lastModified = revalidating.lastModified { download.headers.add(name: "If-Modified-Since", value: lastModified) }
        } else if let conditions = request.sourceConditions {
            if let etag = conditions.ifNoneMatch { download.headers.add(name: "If-None-Match", value: etag) }
            if let since = conditions.ifModifiedSince { download.headers.add(name: "If-Modified-Since", value: since) }
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
        var key = originalKey
        if let size = request.processing.thumbnailPixelSize {
            key = CacheKey.thumbnailKey(key, size: size, preserveAspectRatio: request.processing.preserveAspectRatio)
        }
        if let transformer = request.processing.transformer {
            key = CacheKey.transformedKey(key, transformerKey: transformer.key)
        }
        return key
    }

    // MARK: Stage keys

    /// How the source loads, for the source stage's key: the loader's coalescing key (the
    /// URL and what changes the transfer), whether partial bytes are wanted, or the custom key.
    private static func sourceStageKey(
        request: ImageRequest, download: DownloadOptions, originalKey: String?, sourceCache: any ImageCaching, reads: Bool, stores: Bool
    ) -> String {
        var key = "source|" + (originalKey ?? "") + "|" + CacheIdentity.of(sourceCache)
        if reads { key += "|read" }
        if stores { key += "|store" }
        if request.options.contains(.fromCacheOnly) { key += "|cache-only" }
        if let limit = request.maxSourceBytes { key += "|max:\(limit)" }
        switch request.source {
        case .url(let url):
            key += "|" + download.coalescingKey(for: url)
            if download.wantsPartialData { key += "|partial" }
        case .custom(let custom, _):
            key += "|custom:" + custom
        }
        return key
    }

    /// The source stage's key when the cached source was found unusable: no lookup.
    var freshSourceStageKey: String {
        Self.sourceStageKey(
            request: request, download: downloadOptions, originalKey: originalKey, sourceCache: sourceCache, reads: false, stores: storesSource
        ) + "|fresh"
    }

    /// The decoded-image stage's key.
    var decodeStageKey: String { sourceStageKey + "|" + plan.key }

    /// The processed-image stage's key (the decoded image's when there is no transformer).
    /// Whether animations are transformed is not part of it: a waiter that wants the other
    /// choice gets it from the decoded image that comes with the processed one.
    var processStageKey: String {
        guard let transformer = request.processing.transformer else { return decodeStageKey }
        return decodeStageKey + "|transform:" + transformer.key
    }

    /// The key under which identical image loads share one result and one store.
    var imageStageKey: String {
        let caching = request.caching
        var key = (request.output == .data ? sourceStageKey + "|bytes" : processStageKey)
            + "|result|" + CacheIdentity.of(cache) + "|q:\(caching.query)|s:\(caching.store)"
        if caching.serializer != nil { key += "|serializer:" + CacheIdentity.unique() }
        if request.options.contains(.waitStoreCache) { key += "|wait" }
        if request.options.contains(.progressiveLoad) { key += "|previews" }
        if request.options.contains(.refreshCached) { key += "|refresh" }
        if !isSource { key += "|original-memory:\(sourceQuery.includesMemory),\(sourceStore.includesMemory)" }
        return key
    }

    /// The key under which identical encoded outputs share one making and one store.
    var variantStageKey: String {
        var key = (key ?? (url.absoluteString + " " + (request.variantKeyPart ?? ""))) + "|" + CacheIdentity.of(cache)
        key += "|q:\(request.caching.query)|s:\(resultStore)"
        if request.options.contains(.waitStoreCache) { key += "|wait" }
        if request.options.contains(.fromCacheOnly) { key += "|cache-only" }
        // A conditional making can end in a 304, which only its own waiters may get.
        if let conditions = request.sourceConditions, !conditions.isEmpty { key += "|" + conditions.key }
        return key
    }
}

/// Names of cache instances for stage keys.
enum CacheIdentity {
    /// The object's identity for a cache that is a class; for a value, a name unique to
    /// this call (values cannot be told apart, so work is never shared through them).
    static func of(_ cache: any ImageCaching) -> String {
        if type(of: cache) is AnyClass {
            return "cache@\(UInt(bitPattern: ObjectIdentifier(cache as AnyObject)))"
        }
        return unique()
    }

    private static let counter = Atomic<Int>(0)

    /// A name used once.
    static func unique() -> String {
        "unique#\(counter.add(1, ordering: .relaxed).newValue)"
    }
}
