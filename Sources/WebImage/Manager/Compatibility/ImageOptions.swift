/// How ``ImageManager`` loads one image: SDWebImageOptions, less what only means
/// something on iOS.
///
/// With ``ImageContext``, SDWebImage's shape of a request; the manager turns the pair into
/// an ``ImageRequest`` (``ImageManager/request(for:options:context:)-(URL?,_,_)``): most options are
/// its ``ImageRequest/Options`` of the same name, the others its fields (priority,
/// processing, output, cache tiers). The last three belong to image targets.
public struct ImageOptions: OptionSet, Sendable, Hashable {
    /// The options' bits.
    public let rawValue: Int

    /// Creates options from their raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Load even when the URL is blocked by an earlier permanent failure; success unblocks it.
    public static let retryFailed = ImageOptions(rawValue: 1 << 0)
    /// Download at low priority (behind normal downloads).
    public static let lowPriority = ImageOptions(rawValue: 1 << 1)
    /// Download at high priority (ahead of normal downloads).
    public static let highPriority = ImageOptions(rawValue: 1 << 2)
    /// Deliver partial images while downloading (`isFinal == false`, never cached).
    public static let progressiveLoad = ImageOptions(rawValue: 1 << 3)
    /// Revalidate a cached image with its stored HTTP validators; a changed image is
    /// delivered after the cached one.
    public static let refreshCached = ImageOptions(rawValue: 1 << 4)
    /// Let the load finish during a graceful shutdown instead of being cancelled; for an
    /// encoded variant, finish and cache it even when every request for it has left.
    public static let continueInBackground = ImageOptions(rawValue: 1 << 5)
    /// Send and store cookies for the image's host.
    public static let handleCookies = ImageOptions(rawValue: 1 << 6)
    /// Accept invalid (e.g. self-signed) TLS certificates.
    public static let allowInvalidSSLCertificates = ImageOptions(rawValue: 1 << 7)
    /// Decode large images scaled down under ``ImageContext/scaleDownLimitBytes``.
    public static let scaleDownLargeImages = ImageOptions(rawValue: 1 << 8)
    /// On a memory hit, also read the bytes from disk.
    public static let queryMemoryData = ImageOptions(rawValue: 1 << 9)
    /// Read those bytes before returning from the memory hit rather than after.
    public static let queryMemoryDataSync = ImageOptions(rawValue: 1 << 10)
    /// Query the disk cache synchronously on the calling thread (small caches, tests).
    public static let queryDiskDataSync = ImageOptions(rawValue: 1 << 11)
    /// Never touch the network: a cache miss fails with ``ImageError/notInCache(_:)``.
    public static let fromCacheOnly = ImageOptions(rawValue: 1 << 12)
    /// Never read the cache: always load (the result is still stored). Shorthand for
    /// ``ImageContext/queryCacheType`` and ``ImageContext/originalQueryCacheType`` `.none`.
    public static let fromLoaderOnly = ImageOptions(rawValue: 1 << 13)
    /// Decode only the first frame of an animation.
    public static let decodeFirstFrameOnly = ImageOptions(rawValue: 1 << 14)
    /// Complete only after the disk cache holds the result.
    public static let waitStoreCache = ImageOptions(rawValue: 1 << 16)
    /// Do not decode: check the bytes' format and header limits, cache and return the
    /// bytes only (``ImageResult/image`` is `nil`).
    public static let avoidDecodeImage = ImageOptions(rawValue: 1 << 17)
    /// Store in memory only, never on disk. Shorthand for ``ImageContext/storeCacheType``
    /// without disk and ``ImageContext/originalStoreCacheType`` `.none`.
    public static let cacheMemoryOnly = ImageOptions(rawValue: 1 << 18)
    /// Transform animated images frame by frame; without it they are left untransformed.
    public static let transformAnimatedImage = ImageOptions(rawValue: 1 << 19)
    /// Image targets: do not put the image on the target, only complete.
    public static let avoidAutoSetImage = ImageOptions(rawValue: 1 << 20)
    /// Image targets: show the placeholder only when loading fails.
    public static let delayPlaceholder = ImageOptions(rawValue: 1 << 21)
    /// Image targets: do not cancel the target's previous load.
    public static let avoidAutoCancelImage = ImageOptions(rawValue: 1 << 22)

    /// The download priority these options ask for.
    var downloadPriority: DownloadPriority {
        contains(.highPriority) ? .high : contains(.lowPriority) ? .low : .normal
    }
}
