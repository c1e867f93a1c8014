import Foundation

/// One load through ``ImageManager``: what to load, what to make of it, and how.
///
/// Every way in builds one: ``ImageManager/loadImage(_:progress:)``,
/// ``ImageManager/loadVariant(_:)``, ``ImageTarget/setImage(_:placeholder:options:)`` and
/// ``ImagePrefetcher/prefetch(_:)-([ImageRequest])`` take it as it is; SDWebImage's shape
/// (``ImageOptions`` and ``ImageContext``, given to the manager, image targets or the
/// prefetcher) is turned into one in a single place
/// (``ImageManager/request(for:options:context:)-(URL?,_,_)``). Inside the
/// manager every request goes through the same stages — the source's bytes, the decoded
/// image, the processed image, the encoded output — each shared by every request that
/// needs the same thing at once.
///
/// Every field is honoured on every path it can apply to; a field that cannot apply to
/// what the request asks for (a progressive load of an encoded output, a thumbnail of
/// undecoded bytes…) fails the load at once with ``ImageError/invalidRequest(field:reason:)``,
/// naming it.
///
///     var request = ImageRequest(url: url)
///     request.processing.transformer = ResizeTransformer(size: PixelSize(width: 400, height: 300), mode: .fill)
///     request.output = .encoded(VariantEncoding(format: .fixed(.webp), quality: 75))
///     let variant = try await manager.loadVariant(request)
public struct ImageRequest: Sendable {
    /// Where the bytes come from.
    public var source: ImageSource
    /// Other copies of the image, tried in order when loading ``source`` fails for good
    /// (Kingfisher's `alternativeSources`): a mirror, another CDN, a rendition of another
    /// size. Each is an ``ImageSource``, so a URL can fall back on a closure of your own and
    /// the other way round.
    ///
    /// The next source is tried after a failure another copy may mend: the load failed after
    /// the downloader's retries (``RetryPolicy``), or at once for a status a retry does not
    /// mend (404, 410, 403…), a URL no loader handles, a refused source, a timeout or a
    /// network failure; or the bytes are not a usable image (not an image, an untrusted
    /// format, over ``limits`` or ``maxSourceBytes``). A cancellation, a `304`, a request
    /// the manager refuses (``ImageError/overloaded(_:)``, ``ImageError/invalidRequest(field:reason:)``)
    /// and a failure of what is asked of the image (its transform, its encoding, the memory
    /// budget) end the load at once: another copy of the same image would fail alike.
    ///
    /// The result is cached under the key of ``source`` whichever source answered, so that
    /// the next load of it is a cache hit (``Caching/cachesUnderAnsweringSource`` keeps it
    /// under the answering source's key instead), and ``ImageResult/alternativeSourceIndex``
    /// (``VariantResult/alternativeSourceIndex``) says which one it was.
    ///
    /// Each source that fails is recorded in ``ImageManager/failedURLs`` as any load's
    /// source is, and a blocked source is not loaded while it is blocked (unless
    /// ``Options/retryFailed``, with which a success unblocks the source that answered):
    /// the cache is still read under the request's key, and the load goes on with the next
    /// source. An alternative's answer kept under the primary's key unblocks the primary,
    /// whose key holds an answer then: every load of the primary's URL, with alternatives or
    /// not, is a cache hit while the entry lasts, and once it is gone the primary is asked
    /// again before its alternatives. With ``Caching/cachesUnderAnsweringSource`` the
    /// primary stays blocked, and its next loads go to their alternatives' cache entries
    /// without asking it.
    ///
    /// When every source fails, the load fails with the primary source's error (what a
    /// request without alternatives would fail with, so that its handling does not
    /// change), and ``ImageManager/events`` has reported each source's failure in order
    /// (``ImageEvent/sourceFailed(url:source:reason:next:)``).
    ///
    /// URL alternatives are loaded with the request's settings: its loader, modifiers,
    /// decryptor, retry policy and ``sourceConditions``. The requests waiting for the load
    /// try the alternatives: work that goes on after every one of them left
    /// (``Options/continueInBackground``) finishes the source it was loading, and tries no
    /// other. Empty (the default): one source.
    public var alternativeSources: [ImageSource]
    /// What is done to the decoded image.
    public var processing: ImageProcessing
    /// What the load hands back.
    public var output: ImageOutput
    /// The request's place in the download queue and in the queue for a work slot
    /// (``WorkLimiter``) when they are full.
    public var priority: DownloadPriority
    /// How the request runs.
    public var options: Options
    /// Where the result and its source are looked up and kept.
    public var caching: Caching
    /// Limits checked from the source's header before any pixel is decoded.
    public var limits: ImageLimits
    /// The most bytes the source may have, replacing the downloader's
    /// ``DownloaderConfig/maxBodySize``; a result is not made from a cached source larger
    /// than it either. `nil` keeps the downloader's limit.
    public var maxSourceBytes: Int?
    /// URL sources: the validators of a copy the caller holds, sent to the source; a
    /// source that answers 304 fails the load with ``ImageError/cacheNotModified``.
    /// `nil`: an unconditional download.
    public var sourceConditions: SourceConditions?
    /// URL sources: when a failed download is tried again, replacing the downloader's
    /// ``DownloaderConfig/retryPolicy``; ``RetryPolicy/never`` turns retries off for this
    /// request. `nil` keeps the downloader's. A request that joins a download already under
    /// way for another request shares that download's policy.
    public var retryPolicy: RetryPolicy?
    /// URL sources: changes the request before it is sent.
    public var requestModifier: RequestModifier?
    /// URL sources: changes the response head before it is checked.
    public var responseModifier: ResponseModifier?
    /// URL sources: transforms the downloaded bytes before they are used.
    public var decryptor: Decryptor?
    /// URL sources: the loader to use instead of the manager's ``ImageManager/loader``.
    public var loader: (any ImageLoader)?
    /// The coder to use instead of the manager's ``ImageManager/coder``.
    public var coder: (any ImageCoder)?
    /// Where the load's completions run: ``ImageOutput/image`` and ``ImageOutput/data``
    /// (and an image target's ``ImageTarget/apply(_:update:)``); `nil` runs them on the
    /// thread that finished the work.
    public var callbackExecutor: ImageCallbackExecutor?
    /// The longest the load may take, from its start to its result, every step included
    /// (the wait for a download slot, the download, decoding, processing); past it the load
    /// fails with ``ImageError/timedOut(_:)``, and work no other load waits for stops.
    /// `nil` (the default): only the downloader's own timeouts bound it.
    public var timeout: Duration?
    /// Values of the caller's own that travel with the request to its loader
    /// (``DownloadOptions/userInfo``): an account, a tenant, a tracing tag. They are part of
    /// no cache key and of no download's identity: a load that joins a download already
    /// under way for another request reaches the loader with that request's values.
    public var userInfo: [String: any Sendable] = [:]

    /// Creates a request for `source`, falling back on `alternativeSources`; by default the
    /// decoded image, unprocessed, at normal priority, through every cache tier.
    public init(
        source: ImageSource,
        alternativeSources: [ImageSource] = [],
        processing: ImageProcessing = .none,
        output: ImageOutput = .image,
        priority: DownloadPriority = .normal,
        options: Options = [],
        caching: Caching = Caching(),
        limits: ImageLimits = .default,
        maxSourceBytes: Int? = nil,
        sourceConditions: SourceConditions? = nil,
        retryPolicy: RetryPolicy? = nil,
        requestModifier: RequestModifier? = nil,
        responseModifier: ResponseModifier? = nil,
        decryptor: Decryptor? = nil,
        loader: (any ImageLoader)? = nil,
        coder: (any ImageCoder)? = nil,
        callbackExecutor: ImageCallbackExecutor? = nil
    ) {
        self.source = source
        self.alternativeSources = alternativeSources
        self.processing = processing
        self.output = output
        self.priority = priority
        self.options = options
        self.caching = caching
        self.limits = limits
        self.maxSourceBytes = maxSourceBytes
        self.sourceConditions = sourceConditions
        self.retryPolicy = retryPolicy
        self.requestModifier = requestModifier
        self.responseModifier = responseModifier
        self.decryptor = decryptor
        self.loader = loader
        self.coder = coder
        self.callbackExecutor = callbackExecutor
    }

    /// Creates a request for the image at `url`, falling back on `alternativeSources`; by
    /// default the decoded image, unprocessed, at normal priority, through every cache tier.
    public init(
        url: URL,
        alternativeSources: [ImageSource] = [],
        processing: ImageProcessing = .none,
        output: ImageOutput = .image,
        priority: DownloadPriority = .normal,
        options: Options = [],
        caching: Caching = Caching()
    ) {
        self.init(source: .url(url), alternativeSources: alternativeSources, processing: processing, output: output, priority: priority, options: options, caching: caching)
    }

    /// The URL results and failures are reported under (``ImageSource/url``).
    public var url: URL { source.url }
}
