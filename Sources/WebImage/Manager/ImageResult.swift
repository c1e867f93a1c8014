import Foundation

/// What a load produced.
public struct ImageResult: Sendable {
    /// The decoded image; `nil` only with ``ImageOptions/avoidDecodeImage``.
    public var image: Image?
    /// The image's bytes: the download, or disk cache bytes; `nil` for a memory hit
    /// (unless ``ImageOptions/queryMemoryData``) and for a partial progressive image.
    public var data: Data? {
        get { dataBox?.data }
        set { dataBox = newValue.map(DataBox.init) }
    }

    /// The bytes, boxed. `Data` is a type of resilient size in Foundation, so every copy and
    /// destruction of a `Data?` field is a call the optimizer cannot see into, which keeps it
    /// from moving the image and the URL into a result on a memory hit; a reference it
    /// handles inline. A result without bytes (every memory hit) holds `nil`. Measured with
    /// `LoadingProfile hits compare 40`: a memory hit through `loadImage(from:)` costs 1.96×
    /// a bare cache lookup's CPU with the box, 2.41–2.72× with a `Data?` field.
    private var dataBox: DataBox?

    /// Immutable bytes shared by copies of a result.
    private final class DataBox: Sendable {
        let data: Data
        init(_ data: Data) { self.data = data }
    }
    /// Where the image came from: `.none` for a load, `.memory` or `.disk` for a hit.
    public var cacheType: CacheType
    /// The URL that was asked for.
    public var url: URL
    /// Which source answered, for a request with ``ImageRequest/alternativeSources``: the
    /// index in that list of the alternative the result was loaded (or, with
    /// ``ImageRequest/Caching/cachesUnderAnsweringSource``, read from the cache) for; `nil`
    /// when the request's own ``ImageRequest/source`` answered or the result was found
    /// under its key. An index rather than the source, so that a memory hit's result grows
    /// by no reference to copy.
    public var alternativeSourceIndex: Int?
    /// For a result whose source was loaded for it (or for the load it joined): the final
    /// response's status and headers, as the loader returned them (after redirects); `nil`
    /// for a result from a cache or a custom source.
    public var response: DownloadResponseHead? { transfer?.head }
    /// For a result whose source was downloaded for it (or for the load it joined): how the
    /// download went — its time queued, waiting for its answer and receiving its body, its
    /// bytes, redirects and retries (``DownloadMetrics``); `nil` for a result from a cache,
    /// and from a loader that does not measure it. ``cacheType`` says which tier answered.
    public var downloadMetrics: DownloadMetrics? { transfer?.metrics }
    /// The response and metrics, boxed: `nil` for every cache hit.
    var transfer: SourceTransfer?
    /// `false` for a progressive preview or a cached image about to be replaced by a
    /// refreshed one; the last result of every load is final.
    public var isFinal: Bool

    /// Creates a result.
    public init(image: Image?, data: Data?, cacheType: CacheType, url: URL, isFinal: Bool = true) {
        self.image = image
        dataBox = data.map(DataBox.init)
        self.cacheType = cacheType
        self.url = url
        self.isFinal = isFinal
    }
}
