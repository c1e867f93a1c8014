import Foundation
import NIOHTTP1
import WebImageLocking

/// Loads images through the cache and the loaders: SDWebImageManager's counterpart and
/// the one pipeline behind every WebImage face (library, CLI, proxy).
///
/// A load is one ``ImageRequest``: ``loadImage(_:progress:)`` hands back a decoded image (or the
/// source's bytes) and ``loadVariant(_:)`` an encoded output. SDWebImage's shape —
/// ``loadImage(from:options:context:progress:)`` with ``ImageOptions`` and ``ImageContext``
/// — builds one (``request(for:options:context:)-(URL?,_,_)``). Order of work: validate the request →
/// failed-URL check → query the cache → on a miss, make the result from a cached source or
/// load it → decode → process → store → complete; requests that need the same source,
/// decode or transform at once share one.
public final class ImageManager: Sendable {
    /// Rewrites a request's options and context before it runs; `nil` cancels the request.
    public typealias OptionsProcessor = @Sendable (URL, ImageOptions, ImageContext) -> (ImageOptions, ImageContext)?
    /// Decides whether loading `url` failing with `error` blocks the URL for a while
    /// (SDWebImage's `imageManager:shouldBlockFailedURL:withError:`).
    public typealias FailedURLRule = @Sendable (_ url: URL, _ error: ImageError) -> Bool

    /// The rule of a manager that is given none: permanent failures block
    /// (``ImageError/blocksURL``), transient ones never do.
    public static let defaultShouldBlockFailedURL: FailedURLRule = { _, error in error.blocksURL }

    /// The process-wide manager: the shared cache, and the shared loaders
    /// (``ImageLoadersManager/shared``: the shared downloader, file and data URLs, and any
    /// loader added to them).
    public static let shared = ImageManager()

    /// The cache used unless a request names another: an ``ImageCache`` by default, or any
    /// ``ImageCaching`` (a chain of caches: ``ImageCachesManager``).
    public let cache: any ImageCaching
    /// The loader used unless a request names another: ``ImageLoadersManager/shared`` by
    /// default, so a loader added there serves every load.
    public let loader: any ImageLoader
    /// The coder used unless a request names another: ``ImageCodersManager/shared`` by
    /// default, so a coder added there (``QOICoder``, one of your own) serves every load.
    public let coder: any ImageCoder
    /// URLs blocked after permanent failures.
    public let failedURLs: FailedURLs
    /// Decides which failed loads block their URL in ``failedURLs``: asked with the URL and
    /// the error of every failed load except a cancellation. Default
    /// ``defaultShouldBlockFailedURL``; e.g. `{ _, error in error != .invalidStatusCode(403) && error.blocksURL }`
    /// lets an expired signed URL be retried at once.
    public let shouldBlockFailedURL: FailedURLRule
    /// The context every SDWebImage-shaped request starts from (e.g. a shared cache key
    /// filter); its key filter also serves requests that set none.
    public let defaultContext: ImageContext
    /// Rewrites each SDWebImage-shaped request's options and context.
    public let optionsProcessor: OptionsProcessor?
    /// What the cache tiers keep when the manager makes encoded outputs.
    public let cachePolicy: ImageCachePolicy
    /// What the manager reports: a ``ImageEvent/variantMade(url:bytes:sourceCacheType:downloadedBytes:)``
    /// per encoded output it makes.
    public let events: ImageEvents
    /// The slots in which encoded outputs are made (``loadVariant(_:)``); `nil`: no limit
    /// beyond the coding pool's threads.
    public let variantWorkLimiter: WorkLimiter?
    /// How long work with ``ImageRequest/Options/continueInBackground`` may go on after
    /// every caller has left, as iOS ends a background task at its expiry: still running
    /// then, it is cancelled and ``ImageEvent/backgroundWorkExpired(url:deadline:)`` is
    /// emitted. Default ``defaultBackgroundDeadline``.
    public let backgroundDeadline: Duration

    /// The default ``backgroundDeadline``: 60 seconds.
    public static let defaultBackgroundDeadline: Duration = .seconds(60)
    /// The most encodes making one encoded output may run (``loadVariant(_:)``): auto
    /// quality's search, a file-size limit's search and each candidate of
    /// ``VariantFormat/best(_:)`` stop there and serve the best result they have, and the
    /// work stops before its next encode when every request for it has left. Default
    /// ``defaultMaxEncodesPerOutput``.
    public let maxEncodesPerOutput: Int

    /// The default ``maxEncodesPerOutput``: 24, what `best` of four formats with auto
    /// quality's six encodes each takes.
    public static let defaultMaxEncodesPerOutput = 24

    /// The clock cached entries' freshness is judged by (``CacheFreshness``): the system's
    /// by default; a test advances its own.
    public let now: @Sendable () -> Date

    /// The stages every request goes through.
    let pipeline: ImagePipeline
    private let running = Locked<[ObjectIdentifier: ImageTask]>([:])
    /// Whether a request without a context looks up `url.absoluteString` in the memory of
    /// ``cache`` and nothing else: the default context is a new one, unchanged (any other
    /// goes through the memory-hit rule with its knobs).
    let defaultContextIsPlainForHits: Bool
    /// ``cache`` as the concrete ``ImageCache`` when it is one: a plain memory hit calls it
    /// directly, inlined, instead of through the ``ImageCaching`` existential and without
    /// retaining it (measured: 2.59× against 2.50× a bare lookup, callback form).
    /// Unmanaged because ``cache`` holds it for the manager's life.
    let concreteCache: Unmanaged<ImageCache>?

    /// Creates a manager.
    public init(
        cache: any ImageCaching = ImageCache.shared,
        loader: any ImageLoader = ImageLoadersManager.shared,
        coder: any ImageCoder = ImageCodersManager.shared,
        failedURLs: FailedURLs = FailedURLs(),
        shouldBlockFailedURL: @escaping FailedURLRule = ImageManager.defaultShouldBlockFailedURL,
        defaultContext: ImageContext = ImageContext(),
        optionsProcessor: OptionsProcessor? = nil,
        cachePolicy: ImageCachePolicy = .default,
        variantWorkLimiter: WorkLimiter? = nil,
        events: ImageEvents = ImageEvents(),
        backgroundDeadline: Duration = ImageManager.defaultBackgroundDeadline,
        maxEncodesPerOutput: Int = ImageManager.defaultMaxEncodesPerOutput,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.cache = cache
        self.loader = loader
        self.coder = coder
        self.failedURLs = failedURLs
        self.shouldBlockFailedURL = shouldBlockFailedURL
        self.defaultContext = defaultContext
        self.optionsProcessor = optionsProcessor
        self.cachePolicy = cachePolicy
        self.variantWorkLimiter = variantWorkLimiter
        self.events = events
        self.backgroundDeadline = backgroundDeadline
        self.maxEncodesPerOutput = max(1, maxEncodesPerOutput)
        self.now = now
        concreteCache = (cache as? ImageCache).map { Unmanaged.passUnretained($0) }
        pipeline = ImagePipeline(
            failedURLs: failedURLs, shouldBlockFailedURL: shouldBlockFailedURL, events: events, limiter: variantWorkLimiter,
            backgroundDeadline: backgroundDeadline, maxEncodesPerOutput: self.maxEncodesPerOutput
        )
        defaultContextIsPlainForHits = defaultContext.isUnchanged
    }

    // MARK: Loading images

    /// Loads `request` (its output ``ImageOutput/image`` or ``ImageOutput/data``), calling
    /// `completion` with each intermediate result (`isFinal == false`) and exactly once with
    /// the final result or an ``ImageError``. A memory hit completes before this method
    /// returns, and so does a disk hit with ``ImageRequest/Options/queryDiskDataSync``,
    /// unless ``ImageRequest/callbackExecutor`` hands the completion to an executor.
    @discardableResult
    public func loadImage(
        _ request: ImageRequest,
        progress: (@Sendable (DownloadProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void
    ) -> ImageTask {
        start(request, progress: progress, completion: completion)
    }

    /// Starts `request` as a cancellable task.
    func start(
        _ request: ImageRequest,
        progress: (@Sendable (DownloadProgress) -> Void)?,
        completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void
    ) -> ImageTask {
        let completion = ImageCallbackExecutor.deliver(completion, on: request.callbackExecutor)
        // A request that is refused or hits the cache at once completes before the task
        // returns, with nothing behind the task.
        let resolved: ResolvedRequest
        do throws(ImageError) {
            resolved = try resolve(request, wantsImage: true)
        } catch {
            completion(.failure(error))
            return ImageTask(completedLoadOf: request.url, options: request.options, priority: request.priority)
        }
        if let hit = synchronousHit(resolved) {
            completion(.success(hit))
            return ImageTask(completedLoadOf: request.url, options: request.options, priority: request.priority)
        }
        let task = ImageTask(url: request.url, options: request.options, priority: request.priority, completion: completion) { [weak self] work in
            _ = self?.running.withLock { $0.removeValue(forKey: ObjectIdentifier(work)) }
        }
        // The load's shared work is its identity.
        if let work = task.work { running.withLock { $0[ObjectIdentifier(work)] = task } }
        let pipeline = self.pipeline
        // The load's work runs at the task's priority, which the task can change.
        task.attach(SharedPriority.$current.withValue(task.sharedPriority) {
            Task {
                do throws(ImageError) {
                    let result = try await LoadTimeout.run(within: request.timeout, loadOf: resolved.url.absoluteString) { () throws(ImageError) -> ImageResult in
                        try await pipeline.loadImage(resolved, manager: self, progress: progress) { task.deliver(.success($0)) }
                    }
                    task.deliver(.success(result))
                } catch {
                    task.deliver(.failure(error))
                }
            }
        })
        return task
    }

    /// Loads `request` (its output ``ImageOutput/image`` or ``ImageOutput/data``) and
    /// returns the final result. Cancelling the calling task cancels the load with
    /// ``ImageError/cancelled``.
    public func loadImage(
        _ request: ImageRequest, progress: (@Sendable (DownloadProgress) -> Void)? = nil
    ) async throws(ImageError) -> ImageResult {
        try await awaitLoad { completion in self.loadImage(request, progress: progress, completion: completion) }
    }

    /// A callback load awaited, its task cancelled with the caller's.
    func awaitLoad(
        _ start: (@escaping @Sendable (Result<ImageResult, ImageError>) -> Void) -> ImageTask
    ) async throws(ImageError) -> ImageResult {
        let link = CancellationLink<ImageTask>()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<ImageResult, ImageError>, Never>) in
                let task = start { result in
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

    /// Every result of `request`'s load: intermediate ones and the final one, after which
    /// the stream ends.
    public func results(for request: ImageRequest) -> AsyncThrowingStream<ImageResult, any Error> {
        Self.stream { completion in self.loadImage(request, completion: completion) }
    }

    /// A callback load as a stream of its results, its task cancelled when the stream ends early.
    static func stream(
        _ start: @escaping (@escaping @Sendable (Result<ImageResult, ImageError>) -> Void) -> ImageTask
    ) -> AsyncThrowingStream<ImageResult, any Error> {
        AsyncThrowingStream { continuation in
            let task = start { result in
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

    // MARK: Running loads

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

    // MARK: Preparing a request

    /// `request` checked and resolved against this manager: every field applies to its
    /// output, its output is what the caller asks for (`wantsImage`: ``loadImage(_:)``),
    /// and its URL is not blocked (unless it retries failed URLs, or has alternative
    /// sources: then the pipeline reads its cache and skips to them).
    func resolve(_ request: ImageRequest, wantsImage: Bool) throws(ImageError) -> ResolvedRequest {
        if request.url.absoluteString.isEmpty { throw .invalidURL("") }
        if request.output.isImage != wantsImage {
            throw .invalidRequest(
                field: "output",
                reason: wantsImage ? "is encoded; load it with loadVariant" : "is a decoded image or the source's bytes; load it with loadImage"
            )
        }
        try request.validate()
        if !request.options.contains(.retryFailed), failedURLs.isBlocked(request.url), request.alternativeSources.isEmpty {
            throw .blockedURL(request.url)
        }
        return ResolvedRequest(request, manager: self)
    }
}
