import Foundation

extension ImageManager {
    /// The cache key of `request`'s variant: the source's key (after the context's key
    /// filter) with ``VariantRequest/variantKey`` inserted as a transformer key would be;
    /// `nil` when the key filter says not to cache the source, or when `request` and
    /// `context` do not make a valid request.
    public func variantKey(for request: VariantRequest, context: ImageContext? = nil) -> String? {
        guard let imageRequest = try? self.request(for: request, options: [], context: context) else { return nil }
        return cacheKey(for: imageRequest)
    }

    /// The variant held in memory under `key` (a ``variantKey(for:context:)``), without a
    /// suspension: the hot path of a server answering cached variants.
    public func variantFromMemory(forKey key: String, context: ImageContext? = nil) -> EncodedVariant? {
        (context?.cache ?? cache).variantFromMemory(forKey: key)
    }

    /// An encoded variant of `request.url` (see ``loadVariant(_:)-(ImageRequest)``), with
    /// SDWebImage's `options` and `context` (``request(for:options:context:)-(VariantRequest,_,_)``
    /// says how they make the request, and which of them fail it).
    public func loadVariant(
        _ request: VariantRequest,
        options: ImageOptions = [],
        context: ImageContext? = nil
    ) async throws(ImageError) -> VariantResult {
        try await loadVariant(try self.request(for: request, options: options, context: context))
    }

    /// The encoded output of `request` (``ImageOutput/encoded(_:passthrough:)``, details or a
    /// ThumbHash): from memory, from disk, or made from the source — the cached source
    /// when there is one, else a load — decoded no larger than the request needs
    /// (shrink-on-load), processed and encoded.
    ///
    /// Concurrent requests for one output share one decode, process and encode, and at
    /// most one load of the source; with a ``variantWorkLimiter`` that work runs in one of
    /// its slots (and fails with ``ImageError/overloaded(_:)`` when they and the queue are
    /// full). The output is kept as ``cachePolicy`` and the request say (memory and disk by
    /// default), under ``cacheKey(for:)``, and a loaded source is kept on disk for other
    /// outputs of it. Nothing is cached when making the output fails: a cached source that
    /// is not an image is removed.
    ///
    /// Cancelling the calling task makes it stop waiting with ``ImageError/cancelled``; the
    /// work stops when every request waiting for it has left, unless the request that
    /// started it has ``ImageRequest/Options/continueInBackground``: then it is finished
    /// and cached.
    public func loadVariant(_ request: ImageRequest) async throws(ImageError) -> VariantResult {
        let resolved = try resolve(request, wantsImage: false)
        if let key = resolved.key, !request.options.contains(.refreshCached) {
            if request.caching.query.includesMemory, let variant = resolved.cache.variantFromMemory(forKey: key) {
                return VariantResult(variant: variant, cacheType: .memory)
            }
            if request.options.contains(.queryDiskDataSync), request.caching.query.includesDisk,
               let variant = resolved.cache.entrySync(forKey: key).flatMap(EncodedVariant.init(entry:)) {
                if resolved.resultStore.includesMemory { resolved.cache.storeVariantToMemory(variant, forKey: key) }
                return VariantResult(variant: variant, cacheType: .disk)
            }
        }
        return try await pipeline.variant(resolved, manager: self)
    }
}
