import Foundation

extension ImageManager {
    /// The cache key of `request`'s variant: the source's key (after the context's key
    /// filter) with ``VariantRequest/variantKey`` inserted as a transformer key would be;
    /// `nil` when the key filter says not to cache the source.
    public func variantKey(for request: VariantRequest, context: ImageContext? = nil) -> String? {
        let context = context ?? defaultContext
        guard let original = originalCacheKey(for: request.url, context: context) else { return nil }
        return CacheKey.transformedKey(original, transformerKey: request.variantKey)
    }

    /// The variant held in memory under `key` (a ``variantKey(for:context:)``), without a
    /// suspension: the hot path of a server answering cached variants.
    public func variantFromMemory(forKey key: String, context: ImageContext? = nil) -> EncodedVariant? {
        (context?.cache ?? cache).variantFromMemory(forKey: key)
    }

    /// An encoded variant of `request.url`: from memory, from disk, or made from the source
    /// — the cached original when there is one, else a download — decoded no larger than
    /// the request needs (shrink-on-load), transformed and encoded.
    ///
    /// Concurrent requests for one variant share one decode, transform and encode, and at
    /// most one download; with a ``variantWorkLimiter`` that work runs in one of its slots
    /// (and fails with ``ImageError/overloaded(_:)`` when they and the queue are full). The variant is kept as ``cachePolicy`` says (memory and disk by
    /// default), under ``variantKey(for:context:)``, and the downloaded source is kept on
    /// disk for other variants of it. Nothing is cached when making the variant fails: a
    /// cached source that is not an image is removed.
    ///
    /// Cancelling the calling task makes it stop waiting with ``ImageError/cancelled``; the
    /// work stops when every request waiting for it has left, unless the request that
    /// started it has ``ImageOptions/continueInBackground``: then it is finished and cached.
    ///
    /// Options that apply: ``ImageOptions/retryFailed``, ``ImageOptions/fromCacheOnly``
    /// (a variant not in the cache and not makeable from a cached source fails with
    /// ``ImageError/notInCache(_:)``), ``ImageOptions/fromLoaderOnly`` and
    /// ``ImageOptions/cacheMemoryOnly``, ``ImageOptions/waitStoreCache``, the priorities,
    /// ``ImageOptions/handleCookies`` and ``ImageOptions/allowInvalidSSLCertificates``.
    /// From the context: the cache and original cache with their query and store cache
    /// types (within what ``cachePolicy`` keeps), the loader, coder, key filter, limits,
    /// and the request's modifiers and decryptor.
    public func loadVariant(
        _ request: VariantRequest,
        options: ImageOptions = [],
        context: ImageContext? = nil
    ) async throws(ImageError) -> VariantResult {
        let load = try prepareVariant(request, options: options, context: context)
        if load.context.queryCacheType.includesMemory, let key = load.key, let variant = load.cache.variantFromMemory(forKey: key) {
            return VariantResult(variant: variant, cacheType: .memory)
        }
        let keepRunning = options.contains(.continueInBackground)
        var (result, joined) = try await variantFlights.run(load.flightKey, keepRunning: keepRunning) { () throws(ImageError) -> VariantResult in
            try await load.run()
        }
        result.joined = joined
        return result
    }

    private func prepareVariant(_ request: VariantRequest, options: ImageOptions, context: ImageContext?) throws(ImageError) -> VariantLoad {
        let (_, options, context) = try resolvedRequest(request.url, options: options, context: context)
        let originalKey = originalCacheKey(for: request.url, context: context)
        let key = originalKey.map { CacheKey.transformedKey($0, transformerKey: request.variantKey) }
        let cache = context.cache ?? self.cache
        return VariantLoad(
            request: request, options: options, context: context, originalKey: originalKey, key: key,
            cache: cache, originalCache: context.originalCache ?? cache, loader: context.loader ?? loader,
            coder: context.coder ?? coder, failedURLs: failedURLs, policy: cachePolicy, limiter: variantWorkLimiter,
            events: events, sourceFlights: sourceFlights
        )
    }
}
