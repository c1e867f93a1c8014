import Foundation

/// Per-request settings beyond ``ImageOptions``: SDWebImageContext as a typed struct.
///
/// With ``ImageOptions``, SDWebImage's shape of a request; the manager turns the pair into
/// an ``ImageRequest`` (``ImageManager/request(for:options:context:)-(URL?,_,_)``), whose fields say
/// the same things directly.
///
/// Copies share one storage until one of them changes, so that passing a context, or
/// `nil` for one, costs a single reference.
public struct ImageContext: Sendable {
    // One reference instead of twenty fields: an `ImageContext?` argument (`nil` on a
    // memory hit) is one word to copy and destroy; field by field, its copy and
    // destruction cost 6 % of a memory hit (perf).
    private var storage = ImageContextStorage.empty

    /// Decode as a thumbnail within this size (shrink-on-load); the cache key gets a
    /// thumbnail suffix so that thumbnails and full images are cached apart.
    public var thumbnailPixelSize: PixelSize? {
        get { storage.fields.thumbnailPixelSize }
        set { uniqueStorage().fields.thumbnailPixelSize = newValue }
    }
    /// Transforms the decoded image; the result is cached under the URL's key with the
    /// transformer's key inserted. Animated images are left alone unless
    /// ``ImageOptions/transformAnimatedImage`` is set.
    public var transformer: (any ImageTransformer)? {
        get { storage.fields.transformer }
        set { uniqueStorage().fields.transformer = newValue }
    }
    /// With a thumbnail size: keep the aspect ratio (default) or stretch to the size.
    public var preserveAspectRatio: Bool {
        get { storage.fields.preserveAspectRatio }
        set { uniqueStorage().fields.preserveAspectRatio = newValue }
    }
    /// With ``ImageOptions/scaleDownLargeImages``: the most bytes a decoded image may take. Default 60 MB.
    public var scaleDownLimitBytes: Int {
        get { storage.fields.scaleDownLimitBytes }
        set { uniqueStorage().fields.scaleDownLimitBytes = newValue }
    }
    /// Limits checked from each image's header before decoding.
    public var limits: ImageLimits {
        get { storage.fields.limits }
        set { uniqueStorage().fields.limits = newValue }
    }
    /// The most bytes a source may have, replacing the downloader's
    /// ``DownloaderConfig/maxBodySize`` for this request; a variant is not made from a
    /// cached original larger than it either. `nil` keeps the downloader's limit.
    public var maxSourceBytes: Int? {
        get { storage.fields.maxSourceBytes }
        set { uniqueStorage().fields.maxSourceBytes = newValue }
    }
    /// Maps a URL to its cache key (e.g. dropping a signature that changes); `nil` means
    /// do not cache this URL at all.
    public var cacheKeyFilter: (@Sendable (URL) -> String?)? {
        get { storage.fields.cacheKeyFilter }
        set { uniqueStorage().fields.cacheKeyFilter = newValue }
    }
    /// Chooses the bytes written to disk for a loaded image (`nil` result: encode the image).
    public var cacheSerializer: (@Sendable (_ image: Image?, _ data: Data?, _ url: URL) -> Data?)? {
        get { storage.fields.cacheSerializer }
        set { uniqueStorage().fields.cacheSerializer = newValue }
    }
    /// Changes the request before it is sent.
    public var requestModifier: RequestModifier? {
        get { storage.fields.requestModifier }
        set { uniqueStorage().fields.requestModifier = newValue }
    }
    /// Changes the response head before it is checked.
    public var responseModifier: ResponseModifier? {
        get { storage.fields.responseModifier }
        set { uniqueStorage().fields.responseModifier = newValue }
    }
    /// Transforms the downloaded bytes before decoding.
    public var decryptor: Decryptor? {
        get { storage.fields.decryptor }
        set { uniqueStorage().fields.decryptor = newValue }
    }
    /// Which caches are queried. Default all.
    public var queryCacheType: CacheType {
        get { storage.fields.queryCacheType }
        set { uniqueStorage().fields.queryCacheType = newValue }
    }
    /// Which caches the result is stored in. Default all (memory only with ``ImageOptions/cacheMemoryOnly``).
    public var storeCacheType: CacheType {
        get { storage.fields.storeCacheType }
        set { uniqueStorage().fields.storeCacheType = newValue }
    }
    /// For a variant (a transformer or a thumbnail size): which caches are asked for the
    /// original image when the variant is not cached, so that the variant is made from it
    /// without a download. Default disk.
    public var originalQueryCacheType: CacheType {
        get { storage.fields.originalQueryCacheType }
        set { uniqueStorage().fields.originalQueryCacheType = newValue }
    }
    /// For a variant: where the downloaded original is stored under the original key, so
    /// that other variants of the URL can be made from it later. Default disk (the bytes
    /// as downloaded); memory holds the decoded original only when no thumbnail size is
    /// set (a thumbnail decode is not the original).
    public var originalStoreCacheType: CacheType {
        get { storage.fields.originalStoreCacheType }
        set { uniqueStorage().fields.originalStoreCacheType = newValue }
    }
    /// A cache to use instead of the manager's.
    public var cache: (any ImageCaching)? {
        get { storage.fields.cache }
        set { uniqueStorage().fields.cache = newValue }
    }
    /// For a variant (a transformer or a thumbnail size): the cache that holds originals,
    /// queried for the original (``originalQueryCacheType``) and given the downloaded
    /// bytes (``originalStoreCacheType``), while the variant goes to ``cache``
    /// (SDWebImage's `SDWebImageContextOriginalImageCache`). `nil`: the same cache as the
    /// variant.
    public var originalCache: (any ImageCaching)? {
        get { storage.fields.originalCache }
        set { uniqueStorage().fields.originalCache = newValue }
    }
    /// A loader to use instead of the manager's.
    public var loader: (any ImageLoader)? {
        get { storage.fields.loader }
        set { uniqueStorage().fields.loader = newValue }
    }
    /// A coder to use instead of the manager's.
    public var coder: (any ImageCoder)? {
        get { storage.fields.coder }
        set { uniqueStorage().fields.coder = newValue }
    }
    /// The decoded image's ``Image/scale`` (SDWebImage's `SDWebImageContextImageScaleFactor`);
    /// `nil` takes it from the `@2x` / `@3x` in the cache key. The request's
    /// ``ImageProcessing/scaleFactor``.
    public var imageScaleFactor: Double? {
        get { storage.fields.imageScaleFactor }
        set { uniqueStorage().fields.imageScaleFactor = newValue }
    }
    /// Where completions run, and where an image target is handed its images
    /// (SDWebImage's `SDWebImageContextCallbackQueue`); `nil`: on the thread that finished
    /// the work. The request's ``ImageRequest/callbackExecutor``.
    public var callbackExecutor: ImageCallbackExecutor? {
        get { storage.fields.callbackExecutor }
        set { uniqueStorage().fields.callbackExecutor = newValue }
    }
    /// The key under which an image target keeps this load (to cancel it on reuse).
    public var operationKey: String? {
        get { storage.fields.operationKey }
        set { uniqueStorage().fields.operationKey = newValue }
    }

    /// Creates an empty context.
    public init() {}

    /// The identity of this context's storage: copies share it until one of them changes.
    var storageIdentity: ObjectIdentifier { ObjectIdentifier(storage) }

    /// Whether this is a new context that no knob was set on.
    var isUnchanged: Bool { storage === ImageContextStorage.empty }

    /// The storage, copied first when another context shares it.
    private mutating func uniqueStorage() -> ImageContextStorage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }
}

/// The fields of an ``ImageContext``, in a box that copies share.
// Unchecked: a storage is changed only through a context that holds its one reference
// (`uniqueStorage()`), so no other thread can see it change.
private final class ImageContextStorage: @unchecked Sendable {
    /// Every knob of a context, with its default.
    struct Fields {
        var thumbnailPixelSize: PixelSize?
        var transformer: (any ImageTransformer)?
        var preserveAspectRatio: Bool = true
        var scaleDownLimitBytes: Int = 60 * 1024 * 1024
        var limits: ImageLimits = ImageLimits.default
        var maxSourceBytes: Int?
        var cacheKeyFilter: (@Sendable (URL) -> String?)?
        var cacheSerializer: (@Sendable (_ image: Image?, _ data: Data?, _ url: URL) -> Data?)?
        var requestModifier: RequestModifier?
        var responseModifier: ResponseModifier?
        var decryptor: Decryptor?
        var queryCacheType: CacheType = CacheType.all
        var storeCacheType: CacheType = CacheType.all
        var originalQueryCacheType: CacheType = CacheType.disk
        var originalStoreCacheType: CacheType = CacheType.disk
        var cache: (any ImageCaching)?
        var originalCache: (any ImageCaching)?
        var loader: (any ImageLoader)?
        var coder: (any ImageCoder)?
        var imageScaleFactor: Double?
        var callbackExecutor: ImageCallbackExecutor?
        var operationKey: String?
    }

    /// The storage of every new context, copied at its first change.
    static let empty = ImageContextStorage(Fields())

    var fields: Fields

    init(_ fields: Fields) { self.fields = fields }

    func copy() -> ImageContextStorage { ImageContextStorage(fields) }
}
