import Foundation
import NIOHTTP1

/// One prepared ``ImageManager`` load: its URL, keys, and the cache, loader and coder it
/// uses. `run` performs seed 000's order of work after validation.
struct LoadRequest: Sendable {
    let url: URL
    let options: ImageOptions
    let context: ImageContext
    /// The key of the bytes as loaded; `nil` when the key filter says not to cache.
    let originalKey: String?
    /// The key of the variant asked for (with the thumbnail suffix).
    let key: String?
    let cache: ImageCache
    let loader: any ImageLoader
    let coder: any ImageCoder
    let failedURLs: FailedURLs

    var decodeOptions: ImageDecodeOptions {
        ImageDecodeOptions(
            thumbnailPixelSize: context.thumbnailPixelSize,
            preserveAspectRatio: context.preserveAspectRatio,
            scaleDownLimitBytes: options.contains(.scaleDownLargeImages) ? context.scaleDownLimitBytes : nil,
            firstFrameOnly: options.contains(.decodeFirstFrameOnly),
            limits: context.limits
        )
    }

    var storeCacheType: CacheType {
        guard options.contains(.cacheMemoryOnly) else { return context.storeCacheType }
        return context.storeCacheType.includesMemory ? .memory : .none
    }

    private var queriesCache: Bool {
        !options.contains(.fromLoaderOnly) && context.queryCacheType != .none && key != nil
    }

    /// A cache hit that completes the load at once, when the request allows one: a
    /// memory hit, or with ``ImageOptions/queryDiskDataSync`` a disk hit read and decoded
    /// on the calling thread.
    func synchronousHit() -> ImageResult? {
        guard queriesCache, !options.contains(.refreshCached), !options.contains(.avoidDecodeImage), let key else {
            return nil
        }
        if context.queryCacheType.includesMemory, let hit = memoryHit(key: key) { return hit }
        guard options.contains(.queryDiskDataSync), context.queryCacheType.includesDisk,
              let entry = cache.diskCache.entrySync(forKey: key)
        else { return nil }
        do throws(ImageError) {
            let image = try coder.decode(entry.data, options: decodeOptions)
            if context.queryCacheType.includesMemory { cache.storeToMemory(image, forKey: key) }
            return ImageResult(image: image, data: entry.data, cacheType: .disk, url: url)
        } catch {
            // Undecodable bytes: the asynchronous path removes them and loads afresh.
            return nil
        }
    }

    private func memoryHit(key: String) -> ImageResult? {
        guard let image = cache.imageFromMemory(forKey: key) else { return nil }
        // queryMemoryData wants the bytes too: synchronously only when asked to be.
        if options.contains(.queryMemoryData) {
            guard options.contains(.queryMemoryDataSync) else { return nil }
            return ImageResult(image: image, data: cache.diskCache.dataSync(forKey: key), cacheType: .memory, url: url)
        }
        return ImageResult(image: image, data: nil, cacheType: .memory, url: url)
    }

    func run(
        progress: (@Sendable (DownloadProgress) -> Void)?,
        deliver: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void
    ) async throws(ImageError) {
        let cached = queriesCache ? await queryCache() : nil
        if let cached, !options.contains(.refreshCached) || options.contains(.fromCacheOnly) {
            deliver(.success(cached.result(for: url, isFinal: true)))
            return
        }
        if cached == nil, options.contains(.fromCacheOnly) {
            throw .notInCache(key ?? url.absoluteString)
        }
        try checkCancelled()
        guard loader.canLoad(url) else { throw .invalidURL(url.absoluteString) }

        var download = DownloadOptions(priority: options.downloadPriority)
        download.handleCookies = options.contains(.handleCookies)
        download.allowInvalidSSLCertificates = options.contains(.allowInvalidSSLCertificates)
        download.requestModifier = context.requestModifier
        download.responseModifier = context.responseModifier
        download.decryptor = context.decryptor
        // Progressive previews decode the bytes so far; a decryptor's input is not an image.
        download.wantsPartialData = options.contains(.progressiveLoad) && context.decryptor == nil
        if let cached, let metadata = cached.metadata {
            if let etag = metadata.etag { download.headers.add(name: "If-None-Match", value: etag) }
            if let lastModified = metadata.lastModified { download.headers.add(name: "If-Modified-Since", value: lastModified) }
        }

        let response: DownloadResponse
        do throws(ImageError) {
            response = try await loader.load(url, options: download, progress: progressHandler(progress, deliver: deliver))
        } catch {
            if error == .cacheNotModified, let cached {
                deliver(.success(cached.result(for: url, isFinal: true)))
                return
            }
            failedURLs.record(url, error: error)
            throw error
        }
        try checkCancelled()

        let image: Image?
        do throws(ImageError) {
            image = try await decode(response.data)
        } catch {
            failedURLs.record(url, error: error)
            throw error
        }
        if options.contains(.retryFailed) { failedURLs.remove(url) }
        try checkCancelled()

        await store(image: image, response: response)
        if let cached {
            deliver(.success(cached.result(for: url, isFinal: false)))
        }
        deliver(.success(ImageResult(image: image, data: response.data, cacheType: .none, url: url, isFinal: true)))
    }

    // MARK: Steps

    /// Passes progress on and, with ``ImageOptions/progressiveLoad``, turns each partial
    /// body into a preview (`isFinal == false`, never cached). Reports arrive at most once
    /// per `minimumProgressInterval`, which throttles the decoding too.
    private func progressHandler(
        _ progress: (@Sendable (DownloadProgress) -> Void)?,
        deliver: @escaping @Sendable (Result<ImageResult, ImageError>) -> Void
    ) -> (@Sendable (DownloadProgress) -> Void)? {
        guard options.contains(.progressiveLoad) else { return progress }
        let coder = self.coder
        let decodeOptions = self.decodeOptions
        let url = self.url
        return { report in
            progress?(report)
            guard let partial = report.partialData, !partial.isEmpty,
                  report.expectedBytes.map({ report.receivedBytes < $0 }) ?? true,
                  let preview = try? coder.decodePartial(partial, options: decodeOptions)
            else { return }
            deliver(.success(ImageResult(image: preview, data: nil, cacheType: .none, url: url, isFinal: false)))
        }
    }

    private struct CachedImage {
        let image: Image
        let data: Data?
        let cacheType: CacheType
        let metadata: CacheMetadata?

        func result(for url: URL, isFinal: Bool) -> ImageResult {
            ImageResult(image: image, data: data, cacheType: cacheType, url: url, isFinal: isFinal)
        }
    }

    private func queryCache() async -> CachedImage? {
        guard let key else { return nil }
        if options.contains(.avoidDecodeImage) {
            return nil
        }
        guard let hit = await cache.query(forKey: key, cacheType: context.queryCacheType, decodeOptions: decodeOptions) else {
            return nil
        }
        var data = hit.data
        var metadata = hit.metadata
        if hit.cacheType == .memory {
            if options.contains(.queryMemoryData) { data = await cache.diskData(forKey: key) }
            if options.contains(.refreshCached) { metadata = await cache.metadata(forKey: key) }
        }
        return CachedImage(image: hit.image, data: data, cacheType: hit.cacheType, metadata: metadata)
    }

    /// Decodes on the coding pool; with `avoidDecodeImage`, only checks that the bytes are
    /// an image within the limits (from the header) and returns `nil`.
    private func decode(_ data: Data) async throws(ImageError) -> Image? {
        let coder = self.coder
        let options = decodeOptions
        if self.options.contains(.avoidDecodeImage) {
            _ = try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> ImageInfo in
                try coder.inspect(data, limits: options.limits)
            }
            return nil
        }
        return try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> Image in
            try coder.decode(data, options: options)
        }
    }

    private func store(image: Image?, response: DownloadResponse) async {
        let storeType = storeCacheType
        guard let key, storeType != .none else { return }
        if storeType.includesMemory, let image {
            cache.storeToMemory(image, forKey: key)
        }
        guard storeType.includesDisk else { return }
        let isVariant = key != originalKey
        let serialized = context.cacheSerializer?(image, response.data, url)
        // A thumbnail is not the downloaded file: without a serializer it is encoded anew.
        let data = serialized ?? (isVariant ? nil : response.data)
        let metadata = CacheMetadata(response: response.head)
        let cache = self.cache
        let write = Task {
            try? await cache.store(image, data: data, forKey: key, metadata: metadata, cacheType: .disk)
        }
        if options.contains(.waitStoreCache) { await write.value }
    }

    private func checkCancelled() throws(ImageError) {
        if Task.isCancelled { throw .cancelled }
    }
}
