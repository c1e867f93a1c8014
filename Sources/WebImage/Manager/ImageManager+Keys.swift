import Foundation

extension ImageManager {
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
}
