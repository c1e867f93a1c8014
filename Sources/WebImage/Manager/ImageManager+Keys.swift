import Foundation

extension ImageManager {
    /// The cache key for `url` under `context` (its key filter and thumbnail size), or
    /// `nil` when the filter says not to cache it.
    public func cacheKey(for url: URL, context: ImageContext? = nil) -> String? {
        let context = context ?? defaultContext
        guard let original = originalCacheKey(for: url, context: context) else { return nil }
        return Self.variantKey(original, context: context)
    }

    /// The key `request`'s result is cached under, or `nil` when the key filter says not
    /// to cache its source.
    public func cacheKey(for request: ImageRequest) -> String? {
        originalKey(for: request).map { ResolvedRequest.resultKey($0, request: request) }
    }

    /// The key `request`'s source is cached under: its key filter's (else the default
    /// context's) for a URL, or a custom source's own key.
    func originalKey(for request: ImageRequest) -> String? {
        switch request.source {
        case .url(let url):
            guard let filter = request.caching.keyFilter ?? defaultContext.cacheKeyFilter else { return CacheKey.key(for: url) }
            return filter(url)
        case .custom(let key, _):
            return key
        }
    }

    /// Unblocks `url`.
    public func removeFailedURL(_ url: URL) { failedURLs.remove(url) }

    /// Unblocks every URL.
    public func removeAllFailedURLs() { failedURLs.removeAll() }

    func originalCacheKey(for url: URL, context: ImageContext) -> String? {
        if let filter = context.cacheKeyFilter ?? defaultContext.cacheKeyFilter { return filter(url) }
        return CacheKey.key(for: url)
    }

    /// The key of the result `context` asks for (``CacheKey/processedKey(_:thumbnailPixelSize:preserveAspectRatio:transformerKey:)``).
    static func variantKey(_ key: String, context: ImageContext) -> String {
        CacheKey.processedKey(
            key, thumbnailPixelSize: context.thumbnailPixelSize, preserveAspectRatio: context.preserveAspectRatio,
            transformerKey: context.transformer?.key
        )
    }
}
