import Foundation

extension ImageManager {
    /// Options under which a memory hit is more than the image in memory (bytes from disk,
    /// a revalidation, no cache at all…): such requests take the full path.
    private static let optionsBeyondMemoryHit: ImageOptions = [
        .refreshCached, .queryMemoryData, .queryMemoryDataSync, .avoidDecodeImage, .fromLoaderOnly,
    ]

    /// The memory-hit rule, for every path: the image in memory under `key` when the
    /// request queries memory and wants nothing beyond the image — or its first frame,
    /// when it asks for the first frame only.
    @inline(__always)
    static func memoryHit<Cache: ImageCaching>(forKey key: String, queries: Bool, firstFrameOnly: Bool, in cache: Cache) -> Image? {
        guard queries, let image = cache.imageFromMemory(forKey: key) else { return nil }
        return firstFrameOnly ? ImageCache.firstFrame(of: image) : image
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
        guard optionsProcessor == nil, options.isDisjoint(with: Self.optionsBeyondMemoryHit) else { return nil }
        // A test for nil, not `if let` or `context ?? defaultContext`: either copies the
        // context on every call.
        if context != nil { return plainMemoryHit(url, options: options, in: context.unsafelyUnwrapped) }
        guard defaultContextIsPlainForHits else { return plainMemoryHit(url, options: options, in: defaultContext) }
        let key = url.absoluteString
        guard !key.isEmpty, options.contains(.retryFailed) || !failedURLs.isBlocked(url) else { return nil }
        let firstFrameOnly = options.contains(.decodeFirstFrameOnly)
        guard concreteCache != nil else { return Self.memoryHit(forKey: key, queries: true, firstFrameOnly: firstFrameOnly, in: cache) }
        return concreteCache.unsafelyUnwrapped._withUnsafeGuaranteedRef {
            Self.memoryHit(forKey: key, queries: true, firstFrameOnly: firstFrameOnly, in: $0)
        }
    }

    private func plainMemoryHit(_ url: URL, options: ImageOptions, in context: ImageContext) -> Image? {
        // A scale of the caller's own, or completions on an executor, take the full path.
        guard context.queryCacheType.includesMemory, context.imageScaleFactor == nil, context.callbackExecutor == nil else { return nil }
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
        return Self.memoryHit(forKey: key, queries: true, firstFrameOnly: options.contains(.decodeFirstFrameOnly), in: cache)
    }

    /// A cache hit that completes a resolved image load at once: a memory hit (with
    /// ``ImageRequest/Options/queryMemoryDataSync``, its bytes read from disk too), or
    /// with ``ImageRequest/Options/queryDiskDataSync`` a disk hit read and decoded on the
    /// calling thread.
    func synchronousHit(_ resolved: ResolvedRequest) -> ImageResult? {
        let request = resolved.request
        let options = request.options
        guard let key = resolved.key, request.caching.query != .none, !options.contains(.refreshCached) else { return nil }
        if request.output == .image, options.isDisjoint(with: [.queryMemoryData]) || options.contains(.queryMemoryDataSync),
           let image = Self.memoryHit(
               forKey: key, queries: request.caching.query.includesMemory, firstFrameOnly: request.processing.firstFrameOnly, in: resolved.cache
           ) {
            let data = options.contains(.queryMemoryData) ? resolved.cache.entrySync(forKey: key)?.data : nil
            return ImageResult(image: resolved.scaled(image), data: data, cacheType: .memory, url: resolved.url)
        }
        guard options.contains(.queryDiskDataSync), request.caching.query.includesDisk, let entry = resolved.cache.entrySync(forKey: key) else {
            return nil
        }
        if request.output == .data { return ImageResult(image: nil, data: entry.data, cacheType: .disk, url: resolved.url) }
        let decodeOptions = resolved.plan.requestedOptions
        do throws(ImageError) {
            let image = resolved.scaled(try resolved.coder.decode(entry.data, options: decodeOptions))
            if request.caching.query.includesMemory,
               let memoryKey = ImageCache.memoryKey(forKey: key, decodeOptions: decodeOptions, data: entry.data) {
                resolved.cache.storeToMemory(image, forKey: memoryKey)
            }
            return ImageResult(image: image, data: entry.data, cacheType: .disk, url: resolved.url)
        } catch {
            // Undecodable bytes: the asynchronous path removes them and loads afresh.
            return nil
        }
    }
}
