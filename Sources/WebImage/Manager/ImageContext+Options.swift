extension ImageContext {
    /// This context with the options that are shorthands for its cache knobs folded in,
    /// so that the rest of the manager reads the knobs alone:
    /// - ``ImageOptions/fromLoaderOnly`` is ``queryCacheType`` and
    ///   ``originalQueryCacheType`` `.none`;
    /// - ``ImageOptions/cacheMemoryOnly`` keeps only memory in ``storeCacheType`` and makes
    ///   ``originalStoreCacheType`` `.none`.
    func applying(_ options: ImageOptions) -> ImageContext {
        guard options.contains(.fromLoaderOnly) || options.contains(.cacheMemoryOnly) else { return self }
        var context = self
        if options.contains(.fromLoaderOnly) {
            context.queryCacheType = .none
            context.originalQueryCacheType = .none
        }
        if options.contains(.cacheMemoryOnly) {
            context.storeCacheType = context.storeCacheType.intersection(.memory)
            context.originalStoreCacheType = .none
        }
        return context
    }
}

extension CacheType {
    /// The caches both scopes name.
    public func intersection(_ other: CacheType) -> CacheType {
        switch (includesMemory && other.includesMemory, includesDisk && other.includesDisk) {
        case (true, true): .all
        case (true, false): .memory
        case (false, true): .disk
        case (false, false): .none
        }
    }
}
