import Foundation

/// Per-request settings beyond ``ImageOptions``: SDWebImageContext as a typed struct.
///
/// With ``ImageOptions``, SDWebImage's shape of a request; the manager turns the pair into
/// an ``ImageRequest`` (``ImageManager/request(for:options:context:)``), whose fields say
/// the same things directly.
public struct ImageContext: Sendable {
    /// Decode as a thumbnail within this size (shrink-on-load); the cache key gets a
    /// thumbnail suffix so that thumbnails and full images are cached apart.
    public var thumbnailPixelSize: PixelSize?
    /// Transforms the decoded image; the result is cached under the URL's key with the
    /// transformer's key inserted. Animated images are left alone unless
    /// ``ImageOptions/transformAnimatedImage`` is set.
    public var transformer: (any ImageTransformer)?
    /// With a thumbnail size: keep the aspect ratio (default) or stretch to the size.
    public var preserveAspectRatio = true
    /// With ``ImageOptions/scaleDownLargeImages``: the most bytes a decoded image may take. Default 60 MB.
    public var scaleDownLimitBytes = 60 * 1024 * 1024
    /// Limits checked from each image's header before decoding.
    public var limits = ImageLimits.default
    /// The most bytes a source may have, replacing the downloader's
    /// ``DownloaderConfig/maxBodySize`` for this request; a variant is not made from a
    /// cached original larger than it either. `nil` keeps the downloader's limit.
    public var maxSourceBytes: Int?
    /// Maps a URL to its cache key (e.g. dropping a signature that changes); `nil` means
    /// do not cache this URL at all.
    public var cacheKeyFilter: (@Sendable (URL) -> String?)?
    /// Chooses the bytes written to disk for a loaded image (`nil` result: encode the image).
    public var cacheSerializer: (@Sendable (_ image: Image?, _ data: Data?, _ url: URL) -> Data?)?
    /// Changes the request before it is sent.
    public var requestModifier: RequestModifier?
    /// Changes the response head before it is checked.
    public var responseModifier: ResponseModifier?
    /// Transforms the downloaded bytes before decoding.
    public var decryptor: Decryptor?
    /// Which caches are queried. Default all.
    public var queryCacheType = CacheType.all
    /// Which caches the result is stored in. Default all (memory only with ``ImageOptions/cacheMemoryOnly``).
    public var storeCacheType = CacheType.all
    /// For a variant (a transformer or a thumbnail size): which caches are asked for the
    /// original image when the variant is not cached, so that the variant is made from it
    /// without a download. Default disk.
    public var originalQueryCacheType = CacheType.disk
    /// For a variant: where the downloaded original is stored under the original key, so
    /// that other variants of the URL can be made from it later. Default disk (the bytes
    /// as downloaded); memory holds the decoded original only when no thumbnail size is
    /// set (a thumbnail decode is not the original).
    public var originalStoreCacheType = CacheType.disk
    /// A cache to use instead of the manager's.
    public var cache: (any ImageCaching)?
    /// For a variant (a transformer or a thumbnail size): the cache that holds originals,
    /// queried for the original (``originalQueryCacheType``) and given the downloaded
    /// bytes (``originalStoreCacheType``), while the variant goes to ``cache``
    /// (SDWebImage's `SDWebImageContextOriginalImageCache`). `nil`: the same cache as the
    /// variant.
    public var originalCache: (any ImageCaching)?
    /// A loader to use instead of the manager's.
    public var loader: (any ImageLoader)?
    /// A coder to use instead of the manager's.
    public var coder: (any ImageCoder)?
    /// The key under which an image target keeps this load (to cancel it on reuse).
    public var operationKey: String?

    /// Creates an empty context.
    public init() {}
}
