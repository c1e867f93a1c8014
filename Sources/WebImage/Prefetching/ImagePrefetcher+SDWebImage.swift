import Foundation

/// SDWebImage's shape of a prefetch: lists of URLs, each loaded with ``ImageOptions`` and
/// an ``ImageContext``. Every entry point here turns its URLs into ``ImageRequest``s
/// (``ImageManager/request(for:options:context:)-(URL?,_,_)``, one per URL as its load
/// starts) and prefetches those; a URL whose request cannot be made fails in the prefetch
/// with the error, counted as skipped.
extension ImagePrefetcher {
    /// Creates a prefetcher loading through `manager`, at most `maxConcurrentPrefetchCount`
    /// images at a time (default 3, as in SDWebImage), whose lists of URLs are loaded with
    /// `options` and `context` (SDWebImage's `options` and `context` of the prefetcher).
    /// ``ImageOptions/lowPriority`` is always added.
    public convenience init(
        manager: ImageManager = .shared,
        maxConcurrentPrefetchCount: Int = 3,
        options: ImageOptions = [],
        context: ImageContext? = nil
    ) {
        self.init(
            manager: manager, maxConcurrentPrefetchCount: maxConcurrentPrefetchCount,
            urlSettings: SDWebImagePrefetchSettings(options: options, context: context)
        )
    }

    /// The options every URL of a list is loaded with, unless the prefetch names its own;
    /// ``ImageOptions/lowPriority`` is always among them.
    public var options: ImageOptions { urlSettings.options }
    /// The context every URL of a list is loaded with, unless the prefetch names its own
    /// (`nil`: the manager's default context).
    public var context: ImageContext? { urlSettings.context }

    /// The request a list of URLs loads `url` with: the manager's request for it with
    /// ``options`` and ``context`` (``ImageManager/request(for:options:context:)-(URL?,_,_)``).
    /// A start for requests of your own: change what you need and prefetch them.
    public func request(for url: URL) throws(ImageError) -> ImageRequest {
        try manager.request(for: url, options: urlSettings.options, context: urlSettings.context)
    }

    /// Prefetches `urls` without callbacks (SDWebImage's `prefetchURLs:`) and returns the
    /// token that cancels it. In an async context `prefetch(urls)` is the awaiting form,
    /// ``prefetch(_:)-([URL])->PrefetchResult``.
    @discardableResult
    public func prefetch(_ urls: [URL]) -> PrefetchToken {
        prefetch(urls, progress: nil, completion: nil)
    }

    /// Prefetches `urls` with ``options`` and ``context`` as
    /// ``prefetch(_:progress:completion:)-([ImageRequest],_,_)`` prefetches requests
    /// (SDWebImage's `prefetchURLs:progress:completed:`): `progress` once per URL,
    /// `completion` once at the end.
    ///
    /// A trailing closure is `completion`: `prefetcher.prefetch(urls) { result in … }`.
    /// `completion` takes no default so that Swift binds an unlabeled trailing closure to
    /// it rather than to `progress`; pass `nil` for none.
    @discardableResult
    public func prefetch(
        _ urls: [URL],
        progress: (@Sendable (PrefetchProgress) -> Void)? = nil,
        completion: (@Sendable (PrefetchResult) -> Void)?
    ) -> PrefetchToken {
        prefetch(urlSettings.requests(for: urls, manager: manager), progress: progress, completion: completion)
    }

    /// Prefetches `urls` as ``prefetch(_:progress:completion:)-([URL],_,_)`` does, each load
    /// with `options` and `context` instead of the prefetcher's (SDWebImage's
    /// `prefetchURLs:options:context:progress:completed:`): a thumbnail size, a
    /// transformer, other cache tiers for this prefetch alone. ``ImageOptions/lowPriority``
    /// is added (``ImageOptions/highPriority`` in `options` still wins); a `nil` context
    /// is the manager's default context.
    @discardableResult
    public func prefetch(
        _ urls: [URL],
        options: ImageOptions,
        context: ImageContext?,
        progress: (@Sendable (PrefetchProgress) -> Void)? = nil,
        completion: (@Sendable (PrefetchResult) -> Void)?
    ) -> PrefetchToken {
        let settings = SDWebImagePrefetchSettings(options: options, context: context)
        return prefetch(settings.requests(for: urls, manager: manager), progress: progress, completion: completion)
    }

    /// Prefetches `urls` with ``options`` and ``context`` and returns how it went.
    /// Cancelling the calling task cancels the prefetch, which then returns with
    /// ``PrefetchResult/isCancelled``.
    public func prefetch(_ urls: [URL]) async -> PrefetchResult {
        await prefetch(urlSettings.requests(for: urls, manager: manager))
    }

    /// Prefetches `urls` with `options` and `context` instead of the prefetcher's (see
    /// ``prefetch(_:options:context:progress:completion:)``) and returns how it went.
    /// Cancelling the calling task cancels the prefetch.
    public func prefetch(_ urls: [URL], options: ImageOptions, context: ImageContext?) async -> PrefetchResult {
        await prefetch(SDWebImagePrefetchSettings(options: options, context: context).requests(for: urls, manager: manager))
    }

    /// Prefetches `urls` with ``options`` and ``context``, yielding one report per
    /// finished URL (see ``progress(of:)-([ImageRequest])``).
    public func progress(of urls: [URL]) -> AsyncStream<PrefetchProgress> {
        progress(of: urlSettings.requests(for: urls, manager: manager))
    }
}

/// The options and context a list of URLs is prefetched with: SDWebImage's shape of the
/// requests it makes.
struct SDWebImagePrefetchSettings: Sendable {
    /// The options, ``ImageOptions/lowPriority`` included.
    let options: ImageOptions
    /// The context; `nil`: the manager's default context.
    let context: ImageContext?

    /// The settings of `options` (with ``ImageOptions/lowPriority`` added) and `context`.
    init(options: ImageOptions = [], context: ImageContext? = nil) {
        self.options = options.union(.lowPriority)
        self.context = context
    }

    /// The requests of `urls`, each made as its load starts. Requests made for one URL
    /// from the same options and context are the same request, so their loads are shared:
    /// their recipe is the context's storage (the manager's, for its default context),
    /// which the requests' maker holds.
    func requests(for urls: [URL], manager: ImageManager) -> PrefetchRequests {
        let options = self.options
        let context = self.context
        let recipe = PrefetchLoadKey.Recipe(maker: context?.storageIdentity ?? ObjectIdentifier(manager), variant: options.rawValue)
        return PrefetchRequests(urls: urls, settings: self, recipe: recipe) { url throws(ImageError) in
            try manager.request(for: url, options: options, context: context)
        }
    }
}
