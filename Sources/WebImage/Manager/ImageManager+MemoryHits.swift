import Foundation

extension ImageManager {
    /// The memory-hit rule, for every path: the image in memory under `key` when the load
    /// looks in memory (`query`) and does not revalidate (`options`) — or its first frame,
    /// when it asks for the first frame only. What a path does besides (the bytes read from
    /// disk for ``ImageRequest/Options/queryMemoryData``) is its own.
    @inline(__always)
    static func memoryHit<Cache: ImageCaching>(
        forKey key: String, query: CacheType, options: ImageRequest.Options, firstFrameOnly: Bool, in cache: Cache
    ) -> Image? {
        guard query.includesMemory, !options.contains(.refreshCached), let image = cache.imageFromMemory(forKey: key) else { return nil }
        return firstFrameOnly ? ImageCache.firstFrame(of: image) : image
    }

    /// The memory hit of a resolved image load (``ImageOutput/image``), under its key.
    static func memoryHit(of resolved: ResolvedRequest, key: String) -> Image? {
        let request = resolved.request
        guard request.output == .image else { return nil }
        return memoryHit(
            forKey: key, query: request.caching.query, options: request.options, firstFrameOnly: request.processing.firstFrameOnly,
            in: resolved.cache
        )
    }

    /// The disk-hit rule, for every path: `entry`, read under the result's `key`, decoded as
    /// `resolved` asks, at its scale, and kept in memory when the request looks there.
    static func decodeDiskHit(_ entry: DiskCacheEntry, key: String, for resolved: ResolvedRequest) throws(ImageError) -> Image {
        let options = resolved.plan.requestedOptions
        let image = resolved.scaled(try resolved.coder.decode(entry.data, options: options))
        if resolved.request.caching.query.includesMemory,
           let memoryKey = ImageCache.memoryKey(forKey: key, decodeOptions: options, data: entry.data) {
            resolved.cache.storeToMemory(image, forKey: memoryKey)
        }
        return image
    }

    /// A cache hit that completes a resolved image load at once: a memory hit (with
    /// ``ImageRequest/Options/queryMemoryDataSync``, its bytes read from disk too), or
    /// with ``ImageRequest/Options/queryDiskDataSync`` a disk hit read and decoded on the
    /// calling thread.
    func synchronousHit(_ resolved: ResolvedRequest) -> ImageResult? {
        let request = resolved.request
        let options = request.options
        guard let key = resolved.key, !options.contains(.refreshCached) else { return nil }
        // Bytes from disk read after the hit are the pipeline's.
        if !options.contains(.queryMemoryData) || options.contains(.queryMemoryDataSync), let image = Self.memoryHit(of: resolved, key: key) {
            let data = options.contains(.queryMemoryData) ? resolved.cache.diskTier.entrySync(forKey: key)?.data : nil
            return ImageResult(image: resolved.scaled(image), data: data, cacheType: .memory, url: resolved.url)
        }
        guard options.contains(.queryDiskDataSync), request.caching.query.includesDisk,
              let entry = resolved.cache.diskTier.entrySync(forKey: key), resolved.isFreshResult(entry.metadata)
        else { return nil }
        if request.output == .data { return ImageResult(image: nil, data: entry.data, cacheType: .disk, url: resolved.url) }
        // Undecodable bytes: the asynchronous path removes them and loads afresh.
        guard let image = try? Self.decodeDiskHit(entry, key: key, for: resolved) else { return nil }
        return ImageResult(image: image, data: entry.data, cacheType: .disk, url: resolved.url)
    }
}
