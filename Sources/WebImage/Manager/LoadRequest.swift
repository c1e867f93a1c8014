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
    let cache: any ImageCaching
    /// Where a variant's original is looked up and stored (``ImageContext/originalCache``).
    let originalCache: any ImageCaching
    let loader: any ImageLoader
    let coder: any ImageCoder
    let failedURLs: FailedURLs
    /// The manager's shared decodes + transforms, keyed by variant key.
    let transforms: SharedWorkPool<String, SharedWork<VariantImages, Never>>

    /// Whether the request asks for a variant of the loaded image: a thumbnail size or a
    /// transformer changes the key.
    var isVariant: Bool { key != nil && key != originalKey }

    var decodeOptions: ImageDecodeOptions {
        ImageDecodeOptions(
            thumbnailPixelSize: context.thumbnailPixelSize,
            preserveAspectRatio: context.preserveAspectRatio,
            scaleDownLimitBytes: options.contains(.scaleDownLargeImages) ? context.scaleDownLimitBytes : nil,
            firstFrameOnly: options.contains(.decodeFirstFrameOnly),
            limits: context.limits
        )
    }

    /// What identical decodes and transforms running at once share: everything that changes
    /// the result — the variant's key, the decode options (first frame, scale-down, limits)
    /// and whether animations are transformed.
    var transformFlightKey: String {
        "\(key ?? url.absoluteString) \(decodeOptions) \(options.contains(.transformAnimatedImage))"
    }

    private var queriesCache: Bool {
        context.queryCacheType != .none && key != nil
    }

    /// A cache hit that completes the load at once, when the request allows one: a
    /// memory hit, or with ``ImageOptions/queryDiskDataSync`` a disk hit read and decoded
    /// on the calling thread.
    func synchronousHit() -> ImageResult? {
        guard queriesCache, !options.contains(.refreshCached), !options.contains(.avoidDecodeImage), let key else {
            return nil
        }
        if let hit = memoryHit(key: key) { return hit }
        guard options.contains(.queryDiskDataSync), context.queryCacheType.includesDisk,
              let entry = cache.entrySync(forKey: key)
        else { return nil }
        do throws(ImageError) {
            let image = try coder.decode(entry.data, options: decodeOptions)
            if context.queryCacheType.includesMemory,
               let memoryKey = ImageCache.memoryKey(forKey: key, decodeOptions: decodeOptions, data: entry.data) {
                cache.storeToMemory(image, forKey: memoryKey)
            }
            return ImageResult(image: image, data: entry.data, cacheType: .disk, url: url)
        } catch {
            // Undecodable bytes: the asynchronous path removes them and loads afresh.
            return nil
        }
    }

    private func memoryHit(key: String) -> ImageResult? {
        // queryMemoryData wants the bytes too: synchronously only when asked to be.
        if options.contains(.queryMemoryData) {
            guard options.contains(.queryMemoryDataSync), context.queryCacheType.includesMemory,
                  let image = ImageManager.memoryHit(forKey: key, options: options.subtracting([.queryMemoryData, .queryMemoryDataSync]),
                                                     queryCacheType: context.queryCacheType, in: cache)
            else { return nil }
            return ImageResult(image: image, data: cache.entrySync(forKey: key)?.data, cacheType: .memory, url: url)
        }
        guard let image = ImageManager.memoryHit(forKey: key, options: options, queryCacheType: context.queryCacheType, in: cache) else {
            return nil
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
        if cached == nil, queriesCache, let variant = try await variantFromOriginal() {
            deliver(.success(variant))
            return
        }
        if cached == nil, options.contains(.fromCacheOnly) {
            throw .notInCache(key ?? url.absoluteString)
        }
        // refreshCached: the cached image is handed over at once, as SDWebImage does; the
        // revalidation's answer is the final result.
        if let cached {
            deliver(.success(cached.result(for: url, isFinal: false)))
        }
        try checkCancelled()
        guard loader.canLoad(url) else { throw .invalidURL(url.absoluteString) }

        var download = DownloadOptions(options: options, context: context)
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

        let images: VariantImages?
        do throws(ImageError) {
            images = try await decode(response.data)
        } catch {
            failedURLs.record(url, error: error)
            throw error
        }
        if options.contains(.retryFailed) { failedURLs.remove(url) }
        try checkCancelled()

        await store(images, response: response)
        // A thumbnail or a transformed image is no longer the downloaded bytes (as in
        // SDWebImage), whether it was downloaded or made from the cached original.
        let data = isVariant ? nil : response.data
        deliver(.success(ImageResult(image: images?.result, data: data, cacheType: .none, url: url, isFinal: true)))
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

    /// Decodes (and transforms) on the coding pool; with `avoidDecodeImage`, only checks
    /// that the bytes are an image within the limits (from the header) and returns `nil`.
    private func decode(_ data: Data) async throws(ImageError) -> VariantImages? {
        if options.contains(.avoidDecodeImage) {
            let coder = self.coder
            let limits = decodeOptions.limits
            _ = try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> ImageInfo in
                try coder.inspect(data, limits: limits)
            }
            return nil
        }
        return try await decodeAndTransform(data)
    }

    /// Decodes `data` with the request's decode options and applies its transformer.
    /// Identical requests running at once share one decode and one transform.
    private func decodeAndTransform(_ data: Data) async throws(ImageError) -> VariantImages {
        let coder = self.coder
        let decodeOptions = self.decodeOptions
        let transformer = context.transformer
        let options = self.options
        let work: @Sendable () async throws(ImageError) -> VariantImages = {
            try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> VariantImages in
                var shrunk = false
                // One header read: the shrink-on-load size comes from its facts.
                let (_, decoded) = try coder.decode(data) { info throws(ImageError) -> ImageDecodeOptions in
                    var planned = decodeOptions
                    if let size = Self.shrinkOnLoadSize(for: info, transformer: transformer, decodeOptions: decodeOptions) {
                        // The transformer's own scaled size, exactly (its aspect ratio is the source's).
                        planned.thumbnailPixelSize = size
                        planned.preserveAspectRatio = false
                        shrunk = true
                    }
                    return planned
                }
                let result = try Self.transform(decoded, with: transformer, options: options)
                // A shrunk decode is not the original: it must not be cached as one.
                return VariantImages(decoded: shrunk ? nil : decoded, result: result)
            }
        }
        return try await transforms.run(transformFlightKey, work: work).value
    }

    /// The size `transformer` lets a still source be decoded at (shrink-on-load), from the
    /// header; `nil` (decode at full size) without a transformer, when a thumbnail size was
    /// asked for, or for an animation.
    static func shrinkOnLoadSize(
        for info: ImageInfo, transformer: (any ImageTransformer)?, decodeOptions: ImageDecodeOptions
    ) -> PixelSize? {
        guard let transformer, decodeOptions.thumbnailPixelSize == nil, info.frameCount == 1 else { return nil }
        // EXIF orientations 5–8 turn the image a quarter: the transformer sees it upright.
        return transformer.shrinkOnLoadSize(forSourceSize: info.uprightPixelSize)
    }

    /// Applies `transformer`; animated images only with ``ImageOptions/transformAnimatedImage``.
    static func transform(_ image: Image, with transformer: (any ImageTransformer)?, options: ImageOptions) throws(ImageError) -> Image {
        guard let transformer else { return image }
        if image.isAnimated, !options.contains(.transformAnimatedImage) { return image }
        return try transformer.transform(image)
    }

    /// Makes the variant from the original when the original is cached (SPEC M7): no
    /// download; the variant is stored under its own key only and the original is left as
    /// it is. `nil` when the original is not cached (or its bytes are not an image, in
    /// which case they are removed and the image is loaded afresh).
    private func variantFromOriginal() async throws(ImageError) -> ImageResult? {
        guard isVariant, let originalKey, !options.contains(.avoidDecodeImage) else { return nil }
        let queryType = context.originalQueryCacheType
        let source: CacheType
        let images: VariantImages
        // Memory holds the decoded original at full size: a thumbnail must come from the bytes.
        if queryType.includesMemory, context.thumbnailPixelSize == nil, let original = originalCache.imageFromMemory(forKey: originalKey) {
            let transformer = context.transformer
            let options = self.options
            images = try await transforms.run(transformFlightKey) { () throws(ImageError) -> VariantImages in
                try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> VariantImages in
                    VariantImages(decoded: original, result: try Self.transform(original, with: transformer, options: options))
                }
            }.value
            source = .memory
        } else if queryType.includesDisk, let entry = await originalCache.entry(forKey: originalKey) {
            do throws(ImageError) {
                images = try await decodeAndTransform(entry.data)
            } catch {
                guard case .badImageData = error else { throw error }
                await originalCache.remove(forKey: originalKey, cacheType: .disk)
                return nil
            }
            source = .disk
        } else {
            return nil
        }
        try checkCancelled()
        await storeVariant(images.result, data: nil, metadata: CacheMetadata())
        return ImageResult(image: images.result, data: nil, cacheType: source, url: url)
    }

    private func store(_ images: VariantImages?, response: DownloadResponse) async {
        // Entries holding the download as it came record where it came from (for a
        // revalidation that does not know the key filter); a variant's entry does not.
        var metadata = CacheMetadata(response: response.head)
        let variantMetadata = metadata
        metadata.sourceURL = url
        var writes: [Task<Void, Never>] = []
        if let write = await storeVariant(images?.result, data: response.data, metadata: isVariant ? variantMetadata : metadata, wait: false) {
            writes.append(write)
        }
        // A variant's original is kept too, so that other variants need no download.
        if isVariant, let originalKey {
            let originalType = context.originalStoreCacheType
            if originalType.includesMemory, context.thumbnailPixelSize == nil, let decoded = images?.decoded,
               ImageCache.memoryKey(forKey: originalKey, decodeOptions: decodeOptions, data: response.data) != nil {
                originalCache.storeToMemory(decoded, forKey: originalKey)
            }
            if originalType.includesDisk {
                let cache = self.originalCache
                let data = response.data
                writes.append(Task<Void, Never> {
                    try? await cache.store(nil, data: data, forKey: originalKey, metadata: metadata, cacheType: .disk)
                })
            }
        }
        if options.contains(.waitStoreCache) {
            for write in writes { await write.value }
        }
    }

    /// Stores the result under the request's key as the context's store cache type says: the image in
    /// memory, and on disk the serializer's bytes, else the downloaded bytes for a plain
    /// load, else the image encoded anew (a variant is not the downloaded file). With
    /// `wait` and ``ImageOptions/waitStoreCache`` it returns after the disk write;
    /// otherwise it returns the write's task.
    @discardableResult
    private func storeVariant(_ image: Image?, data downloaded: Data?, metadata: CacheMetadata, wait: Bool = true) async -> Task<Void, Never>? {
        let storeType = context.storeCacheType
        guard let key, storeType != .none else { return nil }
        // A first-frame decode of an animation is not what the key stands for.
        if storeType.includesMemory, let image,
           let memoryKey = ImageCache.memoryKey(forKey: key, decodeOptions: decodeOptions, data: downloaded) {
            cache.storeToMemory(image, forKey: memoryKey)
        }
        guard storeType.includesDisk else { return nil }
        // A serializer sees the downloaded bytes unless a transformer made them stale.
        let serialized = context.cacheSerializer?(image, context.transformer == nil ? downloaded : nil, url)
        let data = serialized ?? (isVariant ? nil : downloaded)
        let cache = self.cache
        let write = Task<Void, Never> {
            try? await cache.store(image, data: data, forKey: key, metadata: metadata, cacheType: .disk)
        }
        if wait, options.contains(.waitStoreCache) { await write.value }
        return write
    }

    private func checkCancelled() throws(ImageError) {
        if Task.isCancelled { throw .cancelled }
    }
}

/// What one decode of a variant produced: the decoded image and the transformed result
/// (the same image when there is no transformer).
struct VariantImages: Sendable {
    /// The decoded original at full size; `nil` when it was decoded shrunk for the transform.
    let decoded: Image?
    let result: Image
}
