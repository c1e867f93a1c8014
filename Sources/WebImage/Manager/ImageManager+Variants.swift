import Foundation

extension ImageManager {
    /// The encoded output `request` asks for held in memory under `key` (its
    /// ``cacheKey(for:)``), when the request may be answered from memory: it looks there,
    /// does not revalidate, and the output is fresh (``CacheFreshness``). No suspension:
    /// the hot path of a server answering cached variants, which computes the key once and
    /// keeps it.
    public func variantFromMemory(for request: ImageRequest, key: String) -> EncodedVariant? {
        guard request.caching.query.includesMemory, !request.options.contains(.refreshCached) else { return nil }
        let cache = request.caching.cache ?? cache
        guard let variant = cache.variantFromMemory(forKey: key) else { return nil }
        let freshness = request.caching.freshness ?? cache.freshness
        return freshness.isFresh(sourceExpiry: variant.sourceExpirationDate, storedDate: variant.createdAt, clock: now) ? variant : nil
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
        if let key = resolved.key {
            if let variant = variantFromMemory(for: request, key: key) { return VariantResult(variant: variant, cacheType: .memory) }
            if let variant = diskHitSync(resolved, key: key) { return VariantResult(variant: variant, cacheType: .disk) }
        }
        let pipeline = pipeline
        return try await SharedPriority.run(request.priority) { () throws(ImageError) -> VariantResult in
            try await LoadTimeout.run(within: request.timeout, loadOf: resolved.url.absoluteString) { () throws(ImageError) -> VariantResult in
                try await pipeline.variant(resolved, manager: self)
            }
        }
    }

    /// With ``ImageRequest/Options/queryDiskDataSync``: the output read from disk on the
    /// calling thread, and kept in memory when the request keeps it there.
    private func diskHitSync(_ resolved: ResolvedRequest, key: String) -> EncodedVariant? {
        let request = resolved.request
        guard request.options.contains(.queryDiskDataSync), !request.options.contains(.refreshCached), request.caching.query.includesDisk,
              let entry = resolved.cache.diskTier.entrySync(forKey: key), resolved.isFreshResult(entry.metadata),
              let variant = EncodedVariant(entry: entry)
        else { return nil }
        if resolved.resultStore.includesMemory { resolved.cache.storeVariantToMemory(variant, forKey: key) }
        return variant
    }
}
