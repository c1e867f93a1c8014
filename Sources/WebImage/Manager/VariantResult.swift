/// What ``ImageManager/loadVariant(_:options:context:)`` returns: the variant and where it
/// came from.
public struct VariantResult: Sendable {
    /// The encoded variant.
    public var variant: EncodedVariant
    /// Where the variant was found: ``CacheType/memory``, ``CacheType/disk``, or
    /// ``CacheType/none`` when it was made for this request (or for a request it joined).
    public var cacheType: CacheType
    /// For a variant made now: where its source came from (``CacheType/none`` for a
    /// download); `nil` for a variant found in a cache.
    public var sourceCacheType: CacheType?
    /// For a variant made now from a download: the bytes downloaded.
    public var downloadedBytes: Int
    /// Whether this request joined another one that was already making or reading the
    /// variant, and so cost no lookup, download or encode of its own (count work only for
    /// results where this is `false`).
    public var joined: Bool
    /// For a variant made now in a ``WorkLimiter`` slot: how long its making loaded,
    /// waited and worked (a request that joined it gets the same); `nil` for a variant
    /// found in a cache or made without a limiter.
    public var timings: VariantTimings?
    /// Which source answered, for a request with ``ImageRequest/alternativeSources``: the
    /// index in that list of the alternative the variant was made from (or, with
    /// ``ImageRequest/Caching/cachesUnderAnsweringSource``, found in the cache for); `nil`
    /// when the request's own ``ImageRequest/source`` answered or the variant was found
    /// under its key.
    public var alternativeSourceIndex: Int?

    /// For a result whose source was loaded for it (or for the load it joined): the final
    /// response's status and headers, as the loader returned them (after redirects); `nil`
    /// for a variant found in a cache, made from a cached source or from a custom source.
    public var response: DownloadResponseHead? { transfer?.head }
    /// For a result whose source was downloaded for it (or for the load it joined): how the
    /// download went — its time queued, waiting for its answer and receiving its body, its
    /// bytes, redirects and retries (``DownloadMetrics``); `nil` for a result from a cache,
    /// and from a loader that does not measure it. ``cacheType`` says which tier answered.
    public var downloadMetrics: DownloadMetrics? { transfer?.metrics }
    /// The response and metrics, boxed: `nil` for every cache hit.
    var transfer: SourceTransfer?

    /// Creates a result.
    public init(
        variant: EncodedVariant, cacheType: CacheType, sourceCacheType: CacheType? = nil, downloadedBytes: Int = 0, joined: Bool = false,
        timings: VariantTimings? = nil, alternativeSourceIndex: Int? = nil
    ) {
        self.alternativeSourceIndex = alternativeSourceIndex
        self.timings = timings
        self.variant = variant
        self.cacheType = cacheType
        self.sourceCacheType = sourceCacheType
        self.downloadedBytes = downloadedBytes
        self.joined = joined
    }
}
