import Foundation

/// SDWebImage's shape of a load — a URL with ``ImageOptions`` and an ``ImageContext`` —
/// on the manager: each is turned into an ``ImageRequest``
/// (``ImageManager/request(for:options:context:)-(URL?,_,_)``), except a plain memory hit,
/// which is answered first without building one.
extension ImageManager {
    /// Loads `url`, calling `completion` with each intermediate result (`isFinal == false`)
    /// and exactly once with the final result or an ``ImageError``.
    ///
    /// A memory hit completes before this method returns, and so does a disk hit with
    /// ``ImageOptions/queryDiskDataSync`` — unless ``ImageContext/callbackExecutor`` hands
    /// the completion to an executor.
    @discardableResult
    public func loadImage(
        with url: URL?,
        options: ImageOptions = [],
        context: ImageContext? = nil,
        progress: (@Sendable (DownloadProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void
    ) -> ImageTask {
        load(url, options: options, context: context, forTarget: false, progress: progress, completion: completion)
    }

    /// ``loadImage(with:options:context:progress:completion:)``; `forTarget`: an image
    /// target's load, whose target options and operation key are its own to honour.
    @inline(__always)
    func load(
        _ url: URL?, options: ImageOptions, context: ImageContext?, forTarget: Bool,
        progress: (@Sendable (DownloadProgress) -> Void)?,
        completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void
    ) -> ImageTask {
        if let task = memoryHitTask(url, options: options, context: context, completion: completion) { return task }
        return loadAfterMemory(url, options: options, context: context, forTarget: forTarget, progress: progress, completion: completion)
    }

    /// A plain memory hit delivered to `completion`, and its finished task; `nil` for any
    /// other request.
    // One call that borrows the URL and the completion and consumes its copy of the URL:
    // inlined into its caller, building the result retains and releases each of them
    // several times over.
    @inline(never)
    private func memoryHitTask(
        _ url: URL?, options: ImageOptions, context: ImageContext?,
        completion: @Sendable (Result<ImageResult, ImageError>) -> Void
    ) -> ImageTask? {
        guard let url, let image = plainMemoryHit(url, options: options, context: context) else { return nil }
        let task = ImageTask(completedLoadOf: url, options: ImageRequest.Options(options))
        completion(.success(ImageResult(image: consume image, data: nil, cacheType: .memory, url: consume url)))
        return task
    }

    /// The load of an SDWebImage-shaped request that is no plain memory hit.
    private func loadAfterMemory(
        _ url: URL?, options: ImageOptions, context: ImageContext?, forTarget: Bool,
        progress: (@Sendable (DownloadProgress) -> Void)?,
        completion: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void
    ) -> ImageTask {
        let request: ImageRequest
        do throws(ImageError) {
            request = try self.request(for: url, options: options, context: context, forTarget: forTarget)
        } catch {
            return ImageTask.failedRequest(
                of: url, options: options, error: error, executor: (context ?? defaultContext).callbackExecutor, completion: completion
            )
        }
        return start(request, progress: progress, completion: completion)
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
    /// awaited. A separate function, off the caller's executor, so that a memory hit
    /// allocates none of its frame.
    private func awaitLoad(
        of url: URL?, options: ImageOptions, context: ImageContext?, progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> ImageResult {
        // The caller found no plain memory hit: the load goes past that probe.
        try await awaitLoad { completion in
            self.loadAfterMemory(url, options: options, context: context, forTarget: false, progress: progress, completion: completion)
        }
    }

    /// Every result of a load: intermediate ones (progressive previews, a cached image
    /// about to be refreshed) and the final one, after which the stream ends.
    public func results(
        from url: URL?,
        options: ImageOptions = [],
        context: ImageContext? = nil
    ) -> AsyncThrowingStream<ImageResult, any Error> {
        Self.stream { completion in self.loadImage(with: url, options: options, context: context, completion: completion) }
    }

    /// The memory hit of an SDWebImage-shaped request that needs nothing else, found
    /// without building an ``ImageRequest``: the hot path of a warm cache (a server's or a
    /// list's), which must cost little more than the cache lookup itself. `nil` sends the
    /// request down the full path, which gives the same answer for every case this one
    /// handles.
    // Never inlined: in an async caller, the values this works with (a URL, an
    // `ImageResult`: types of resilient size) would each cost a task allocation. It
    // returns the image alone, so that the result is built once, where it is returned.
    @inline(never)
    func plainMemoryHit(_ url: URL, options: ImageOptions, context: ImageContext?) -> Image? {
        // Bytes from disk, undecoded bytes and no lookup are the full path's.
        guard optionsProcessor == nil, options.isDisjoint(with: [.queryMemoryData, .avoidDecodeImage, .fromLoaderOnly]) else { return nil }
        // A test for nil, not `if let` or `context ?? defaultContext`: either copies the
        // context on every call.
        if context != nil { return plainMemoryHit(url, options: options, in: context.unsafelyUnwrapped) }
        guard defaultContextIsPlainForHits else { return plainMemoryHit(url, options: options, in: defaultContext) }
        let key = url.absoluteString
        guard !key.isEmpty, options.contains(.retryFailed) || !failedURLs.isBlocked(url) else { return nil }
        let firstFrameOnly = options.contains(.decodeFirstFrameOnly)
        let flags = ImageRequest.Options(options)
        guard concreteCache != nil else {
            return Self.memoryHit(forKey: key, query: .all, options: flags, firstFrameOnly: firstFrameOnly, in: cache)
        }
        return concreteCache.unsafelyUnwrapped._withUnsafeGuaranteedRef {
            Self.memoryHit(forKey: key, query: .all, options: flags, firstFrameOnly: firstFrameOnly, in: $0)
        }
    }

    private func plainMemoryHit(_ url: URL, options: ImageOptions, in context: ImageContext) -> Image? {
        // A scale of the caller's own, or completions on an executor, take the full path.
        guard context.imageScaleFactor == nil, context.callbackExecutor == nil else { return nil }
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
        let cache = context.cache ?? cache
        return Self.memoryHit(
            forKey: key, query: context.queryCacheType, options: ImageRequest.Options(options),
            firstFrameOnly: options.contains(.decodeFirstFrameOnly), in: cache
        )
    }

    // MARK: Keys

    /// The cache key for `url` under `context` (its key filter and thumbnail size), or
    /// `nil` when the filter says not to cache it.
    public func cacheKey(for url: URL, context: ImageContext? = nil) -> String? {
        let context = context ?? defaultContext
        guard let original = originalCacheKey(for: url, context: context) else { return nil }
        return Self.variantKey(original, context: context)
    }

    /// The key `url`'s source is cached under with `context`'s key filter (else the default context's).
    func originalCacheKey(for url: URL, context: ImageContext) -> String? {
        if let filter = context.cacheKeyFilter ?? defaultContext.cacheKeyFilter { return filter(url) }
        return CacheKey.key(for: url)
    }

    /// The key of the result `context` asks for (``CacheKey/processedKey(_:thumbnailPixelSize:preserveAspectRatio:transformerKey:)``).
    static func variantKey(_ key: String, context: ImageContext) -> String {
        CacheKey.processedKey(
            key, thumbnailPixelSize: context.thumbnailPixelSize, preserveAspectRatio: context.preserveAspectRatio,
            transformerKey: context.transformer?.key
        )
    }
}
