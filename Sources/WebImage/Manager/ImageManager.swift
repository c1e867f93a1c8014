import Foundation
import NIOHTTP1
import WebImageLocking

/// Loads images through the cache and the loaders: SDWebImageManager's counterpart and
/// the one pipeline behind every WebImage face (library, CLI, proxy).
///
/// Order of work for one load: validate the URL → failed-URL check → query the cache
/// → on a miss, load → decode → store → complete. See ``ImageOptions`` and
/// ``ImageContext`` for what a request can change.
public final class ImageManager: Sendable {
    /// Rewrites a request's options and context before it runs; `nil` cancels the request.
    public typealias OptionsProcessor = @Sendable (URL, ImageOptions, ImageContext) -> (ImageOptions, ImageContext)?

    /// The process-wide manager: shared cache, shared downloader, file and data URLs.
    public static let shared = ImageManager()

    /// The cache used unless a request's context names another: an ``ImageCache`` by
    /// default, or any ``ImageCaching`` (a chain of caches: ``ImageCachesManager``).
    public let cache: any ImageCaching
    /// The loader used unless a request's context names another.
    public let loader: any ImageLoader
    /// The coder used unless a request's context names another: ``ImageCodersManager/shared``
    /// by default, so a coder added there (``QOICoder``, one of your own) serves every load.
    public let coder: any ImageCoder
    /// URLs blocked after permanent failures.
    public let failedURLs: FailedURLs
    /// The context every request starts from (e.g. a shared cache key filter).
    public let defaultContext: ImageContext
    /// Rewrites each request's options and context.
    public let optionsProcessor: OptionsProcessor?
    /// What the cache tiers keep when the manager makes encoded variants.
    public let cachePolicy: ImageCachePolicy
    /// What the manager reports: a ``ImageEvent/variantMade(url:bytes:sourceCacheType:downloadedBytes:)``
    /// per encoded variant it makes.
    public let events: ImageEvents
    /// The slots in which encoded variants are made (``loadVariant(_:options:context:)``);
    /// `nil`: no limit beyond the coding pool's threads.
    public let variantWorkLimiter: WorkLimiter?

    private let running = Locked<[ObjectIdentifier: ImageTask]>([:])
    /// Whether a request without a context looks up `url.absoluteString` in the memory of
    /// ``cache`` and nothing else: no key filter, thumbnail, transformer or cache override.
    private let defaultContextIsPlain: Bool
    /// Identical transformed requests share one decode + transform.
    let transforms = SharedWorkPool<String, SharedWork<VariantImages, Never>>()
    /// Identical encoded-variant requests share one decode, transform and encode.
    let variantFlights = SharedWorkPool<String, SharedWork<VariantResult, Never>>()
    /// Variants of one source made at once share one download (``VariantLoad``).
    let sourceFlights = SharedWorkPool<String, SharedWork<VariantLoad.Source, Never>>()

    /// Creates a manager.
    public init(
        cache: any ImageCaching = ImageCache.shared,
        loader: any ImageLoader = ImageLoaders([ImageDownloader.shared, FileLoader(), DataURLLoader()]),
        coder: any ImageCoder = ImageCodersManager.shared,
        failedURLs: FailedURLs = FailedURLs(),
        defaultContext: ImageContext = ImageContext(),
        optionsProcessor: OptionsProcessor? = nil,
        cachePolicy: ImageCachePolicy = .default,
        variantWorkLimiter: WorkLimiter? = nil,
        events: ImageEvents = ImageEvents()
    ) {
        self.cache = cache
        self.loader = loader
        self.coder = coder
        self.failedURLs = failedURLs
        self.defaultContext = defaultContext
        self.optionsProcessor = optionsProcessor
        self.cachePolicy = cachePolicy
        self.variantWorkLimiter = variantWorkLimiter
        self.events = events
        self.defaultContextIsPlain = defaultContext.cacheKeyFilter == nil && defaultContext.thumbnailPixelSize == nil
            && defaultContext.transformer == nil && defaultContext.cache == nil && defaultContext.queryCacheType.includesMemory
            && defaultContext.originalCache == nil
    }

    // MARK: Loading

    /// Loads `url`, calling `completion` with each intermediate result (`isFinal == false`)
    /// and exactly once with the final result or an ``ImageError``.
    ///
    /// A memory hit completes before this method returns, and so does a disk hit with
    /// ``ImageOptions/queryDiskDataSync``.
    @discardableResult
    public func loadImage(
        with url: URL?,
        options: ImageOptions = [],
        context: ImageContext? = nil,
        progress: (@Sendable (DownloadProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void
    ) -> ImageTask {
        if let url, let image = plainMemoryHit(url, options: options, context: context) {
            completion(.success(ImageResult(image: image, data: nil, cacheType: .memory, url: url)))
            return ImageTask(completedLoadOf: url, options: options)
        }
        let task = ImageTask(url: url, options: options, completion: completion) { [weak self] work in
            _ = self?.running.withLock { $0.removeValue(forKey: ObjectIdentifier(work)) }
        }
        let request: LoadRequest
        do throws(ImageError) {
            request = try prepare(url, options: options, context: context)
        } catch {
            task.deliver(.failure(error))
            return task
        }
        if let hit = request.synchronousHit() {
            task.deliver(.success(hit))
            return task
        }
        // The load's shared work is its identity.
        if let work = task.work { running.withLock { $0[ObjectIdentifier(work)] = task } }
        task.attach(Task {
            do throws(ImageError) {
                try await request.run(progress: progress, deliver: task.deliver)
            } catch {
                task.deliver(.failure(error))
            }
        })
        return task
    }

    /// Loads `url` and returns the final result. Cancelling the calling task cancels the
    /// load with ``ImageError/cancelled``.
    ///
    /// It runs on the caller's executor, so a memory hit returns without a hop.
    nonisolated(nonsending)
    public func loadImage(
        from url: URL?,
        options: ImageOptions = [],
        context: ImageContext? = nil,
        progress: (@Sendable (DownloadProgress) -> Void)? = nil
    ) async throws(ImageError) -> ImageResult {
        if let url, let image = plainMemoryHit(url, options: options, context: context) {
            return ImageResult(image: image, data: nil, cacheType: .memory, url: url)
        }
        return try await awaitLoad(of: url, options: options, context: context, progress: progress)
    }

    /// The full path of ``loadImage(from:options:context:progress:)``: a callback load
    /// awaited, its task cancelled with the caller's. A separate function, off the
    /// caller's executor, so that a memory hit allocates none of its frame.
    private func awaitLoad(
        of url: URL?,
        options: ImageOptions,
        context: ImageContext?,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> ImageResult {
        let link = CancellationLink<ImageTask>()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<ImageResult, ImageError>, Never>) in
                let task = loadImage(with: url, options: options, context: context, progress: progress) { result in
                    if case .success(let value) = result, !value.isFinal { return }
                    continuation.resume(returning: result)
                }
                link.attach(task) { $0.cancel() }
            }
        } onCancel: {
            link.cancel { $0.cancel() }
        }
        return try result.get()
    }

    /// Every result of a load: intermediate ones (progressive previews, a cached image
    /// about to be refreshed) and the final one, after which the stream ends.
    public func results(
        from url: URL?,
        options: ImageOptions = [],
        context: ImageContext? = nil
    ) -> AsyncThrowingStream<ImageResult, any Error> {
        AsyncThrowingStream { continuation in
            let task = loadImage(with: url, options: options, context: context) { result in
                switch result {
                case .success(let value):
                    continuation.yield(value)
                    if value.isFinal { continuation.finish() }
                case .failure(let error):
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Whether any load is running.
    public var isRunning: Bool { running.withLock { !$0.isEmpty } }

    /// Loads running now.
    public var runningCount: Int { running.withLock { $0.count } }

    /// Cancels every running load; each completes with `cancelled`.
    public func cancelAll() {
        let tasks = running.withLock { Array($0.values) }
        for task in tasks { task.cancel() }
    }

    /// Stops for a graceful shutdown: cancels every load except those with
    /// ``ImageOptions/continueInBackground``, which get up to `gracePeriod` to finish
    /// before they are cancelled too. Returns when no load is running.
    public func shutdown(gracePeriod: Duration = .seconds(10)) async {
        let tasks = running.withLock { Array($0.values) }
        for task in tasks where !task.options.contains(.continueInBackground) { task.cancel() }
        let deadline = ContinuousClock.now + gracePeriod
        while isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        cancelAll()
    }

    // MARK: Keys and failed URLs

    /// The cache key for `url` under `context` (its key filter and thumbnail size), or
    /// `nil` when the filter says not to cache it.
    public func cacheKey(for url: URL, context: ImageContext? = nil) -> String? {
        let context = context ?? defaultContext
        guard let original = originalCacheKey(for: url, context: context) else { return nil }
        return Self.variantKey(original, context: context)
    }

    /// Unblocks `url`.
    public func removeFailedURL(_ url: URL) { failedURLs.remove(url) }

    /// Unblocks every URL.
    public func removeAllFailedURLs() { failedURLs.removeAll() }

    func originalCacheKey(for url: URL, context: ImageContext) -> String? {
        if let filter = context.cacheKeyFilter ?? defaultContext.cacheKeyFilter { return filter(url) }
        return CacheKey.key(for: url)
    }

    /// The key of the variant `context` asks for: the thumbnail key first, then the
    /// transformer's, as SDWebImage appends them (SPEC K9).
    static func variantKey(_ key: String, context: ImageContext) -> String {
        var key = key
        if let size = context.thumbnailPixelSize {
            key = CacheKey.thumbnailKey(key, size: size, preserveAspectRatio: context.preserveAspectRatio)
        }
        if let transformer = context.transformer {
            key = CacheKey.transformedKey(key, transformerKey: transformer.key)
        }
        return key
    }

    // MARK: Preparing a request

    /// Options under which a memory hit is more than the image in memory (bytes from disk,
    /// a revalidation, no cache at all…): such requests take the full path.
    private static let optionsBeyondMemoryHit: ImageOptions = [
        .refreshCached, .queryMemoryData, .queryMemoryDataSync, .avoidDecodeImage, .fromLoaderOnly,
    ]

    /// The memory-hit rule, for the fast path and the full one alike: with a context that
    /// queries memory and options that want nothing beyond the image, the image in memory
    /// under `key` — or its first frame, with ``ImageOptions/decodeFirstFrameOnly``.
    @inline(__always)
    static func memoryHit(forKey key: String, options: ImageOptions, queryCacheType: CacheType, in cache: any ImageCaching) -> Image? {
        guard queryCacheType.includesMemory, options.isDisjoint(with: optionsBeyondMemoryHit),
              let image = cache.imageFromMemory(forKey: key)
        else { return nil }
        return options.contains(.decodeFirstFrameOnly) ? ImageCache.firstFrame(of: image) : image
    }

    /// The memory hit of a request that needs nothing else, found without building a
    /// ``LoadRequest``: the hot path of a warm cache (a server's or a list's), which must
    /// cost little more than the cache lookup itself. `nil` sends the request down the
    /// full path, which gives the same answer for every case this one handles.
    // Never inlined: in an async caller, the values this works with (a URL, an
    // `ImageResult`: types of resilient size) would each cost a task allocation. It
    // returns the image alone, so that the result is built once, where it is returned.
    @inline(never)
    private func plainMemoryHit(_ url: URL, options: ImageOptions, context: ImageContext?) -> Image? {
        guard optionsProcessor == nil else { return nil }
        // Branches instead of `context ?? defaultContext`, which would copy the context.
        if let context { return plainMemoryHit(url, options: options, in: context) }
        guard defaultContextIsPlain else { return plainMemoryHit(url, options: options, in: defaultContext) }
        let key = url.absoluteString
        guard !key.isEmpty, options.contains(.retryFailed) || !failedURLs.isBlocked(url) else { return nil }
        return Self.memoryHit(forKey: key, options: options, queryCacheType: .all, in: cache)
    }

    private func plainMemoryHit(_ url: URL, options: ImageOptions, in context: ImageContext) -> Image? {
        guard context.queryCacheType.includesMemory, options.isDisjoint(with: Self.optionsBeyondMemoryHit) else { return nil }
        let string = url.absoluteString
        guard !string.isEmpty else { return nil }
        if !options.contains(.retryFailed), failedURLs.isBlocked(url) { return nil }
        var key: String
        if let filter = context.cacheKeyFilter ?? defaultContext.cacheKeyFilter {
            guard let filtered = filter(url) else { return nil }
            key = filtered
        } else {
            key = string
        }
        if context.thumbnailPixelSize != nil || context.transformer != nil {
            key = Self.variantKey(key, context: context)
        }
        return Self.memoryHit(forKey: key, options: options, queryCacheType: context.queryCacheType, in: context.cache ?? cache)
    }

    /// What every request goes through first, a load or an encoded variant: the URL must
    /// not be empty, the options processor may rewrite or cancel it, the options that are
    /// shorthands for context knobs are folded in, and a blocked URL is refused unless
    /// ``ImageOptions/retryFailed``.
    func resolvedRequest(_ url: URL?, options: ImageOptions, context: ImageContext?) throws(ImageError) -> (URL, ImageOptions, ImageContext) {
        guard let url, !url.absoluteString.isEmpty else { throw .invalidURL("") }
        var options = options
        var context = context ?? defaultContext
        if let optionsProcessor {
            guard let processed = optionsProcessor(url, options, context) else {
                throw .invalidDownloadOperation("the options processor cancelled the load of \(url.absoluteString)")
            }
            (options, context) = processed
        }
        if !options.contains(.retryFailed), failedURLs.isBlocked(url) { throw .blockedURL(url) }
        return (url, options, context.applying(options))
    }

    private func prepare(_ url: URL?, options: ImageOptions, context: ImageContext?) throws(ImageError) -> LoadRequest {
        let (url, options, context) = try resolvedRequest(url, options: options, context: context)
        if options.contains(.avoidDecodeImage), let transformer = context.transformer {
            throw .invalidDownloadOperation(
                "avoidDecodeImage cannot be combined with the transformer \(transformer.key): a transformer needs decoded pixels; drop one of them"
            )
        }
        // Whether a loader handles the URL is asked only when a load is needed (as
        // SDWebImage does): a memory hit skips re-parsing the URL's scheme and host.
        let loader = context.loader ?? self.loader
        let originalKey = originalCacheKey(for: url, context: context)
        return LoadRequest(
            url: url, options: options, context: context,
            originalKey: originalKey, key: originalKey.map { Self.variantKey($0, context: context) },
            cache: context.cache ?? cache, originalCache: context.originalCache ?? context.cache ?? cache,
            loader: loader, coder: context.coder ?? coder, failedURLs: failedURLs,
            transforms: transforms
        )
    }
}
