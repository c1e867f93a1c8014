import Foundation

/// The image cache: decoded images in a ``MemoryCache`` and their encoded bytes in a
/// ``DiskCache``, behind one facade shaped like SDWebImage's `SDImageCache`.
///
/// Memory answers first; a disk hit is decoded with ``coder`` on a background pool and,
/// when the query includes memory, kept in memory for next time. Keys are plain strings:
/// ``CacheKey`` makes them from URLs and folds transformer keys into them. A caller that
/// decodes with non-default options (a thumbnail size, say) should use a key that says so,
/// since the memory cache holds one image per key.
public final class ImageCache: Sendable {
    /// The cache the library uses unless told otherwise: default configuration, under
    /// ``CacheConfig/defaultRootDirectory``.
    public static let shared = ImageCache()

    /// The configuration the cache was created with.
    public let config: CacheConfig
    /// The memory cache of decoded images (cost: ``Image/memoryCost``); its limits can be
    /// changed live.
    public let memoryCache: MemoryCache<String, Image>
    /// The disk cache of encoded bytes.
    public let diskCache: DiskCache
    /// The coder that decodes disk hits, and encodes images stored without their bytes.
    public let coder: any ImageCoder

    /// Creates a cache with `config`, decoding with `coder`.
    public init(config: CacheConfig = CacheConfig(), coder: any ImageCoder = VipsCoder.shared) {
        self.config = config
        self.memoryCache = MemoryCache(
            totalCostLimit: config.maxMemoryCost,
            countLimit: config.maxMemoryCount,
            entryCostFraction: config.maxMemoryCostFractionPerEntry
        )
        self.diskCache = DiskCache(config: config)
        self.coder = coder
    }

    // MARK: Storing

    /// Stores `image` in memory and `data` on disk under `key`, as `cacheType` says.
    ///
    /// The memory store happens before this method first suspends, so the image is visible
    /// to ``imageFromMemory(forKey:)`` as soon as the call has started; the method returns
    /// once the disk entry is written. Without `data`, the image is encoded for the disk (in
    /// its own format when writable, else PNG with alpha and JPEG without). Without `image`,
    /// memory is left alone.
    public func store(
        _ image: Image?,
        data: Data?,
        forKey key: String,
        metadata: CacheMetadata = CacheMetadata(),
        cacheType: CacheType = .all
    ) async throws(ImageError) {
        if cacheType.includesMemory, let image {
            storeToMemory(image, forKey: key)
        }
        guard cacheType.includesDisk else { return }
        if let data {
            try await diskCache.store(data, forKey: key, metadata: metadata)
        } else if let image {
            let coder = self.coder
            let encoded = try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> Data in
                try coder.encode(image, options: ImageEncodeOptions(format: Self.diskFormat(for: image)))
            }
            try await diskCache.store(encoded, forKey: key, metadata: metadata)
        }
    }

    /// Stores `image` in memory under `key`, at once (unless
    /// ``CacheConfig/shouldCacheImagesInMemory`` is off, or the image costs more than the
    /// per-entry fraction of the memory limit).
    public func storeToMemory(_ image: Image, forKey key: String) {
        guard config.shouldCacheImagesInMemory else { return }
        memoryCache.setValue(image, forKey: key, cost: image.memoryCost)
    }

    /// The format an image stored without its bytes is encoded in.
    static func diskFormat(for image: Image) -> ImageFormat {
        if image.format.isWritable { return image.format }
        return image.hasAlpha ? .png : .jpeg
    }

    // MARK: Querying

    /// The image in memory for `key`, if any.
    public func imageFromMemory(forKey key: String) -> Image? {
        memoryCache.value(forKey: key)
    }

    /// Looks `key` up in the caches `cacheType` names: memory first, then disk.
    ///
    /// A disk hit is decoded with `decodeOptions` on a background pool and then kept in
    /// memory when `cacheType` includes memory. Disk bytes that are not a decodable image
    /// (``ImageError/badImageData(_:)``) are removed and read as a miss; bytes refused for
    /// another reason (a limit, an untrusted format) read as a miss and stay.
    public func query(
        forKey key: String,
        cacheType: CacheType = .all,
        decodeOptions: ImageDecodeOptions = ImageDecodeOptions()
    ) async -> CacheQueryResult? {
        if cacheType.includesMemory, let image = imageFromMemory(forKey: key) {
            return CacheQueryResult(image: image, data: nil, cacheType: .memory)
        }
        guard cacheType.includesDisk, let entry = await diskCache.entry(forKey: key) else { return nil }
        let coder = self.coder
        let data = entry.data
        let image: Image
        do {
            image = try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> Image in
                try coder.decode(data, options: decodeOptions)
            }
        } catch {
            if case .badImageData = error { await diskCache.remove(forKey: key) }
            return nil
        }
        if cacheType.includesMemory {
            storeToMemory(image, forKey: key)
        }
        return CacheQueryResult(image: image, data: data, cacheType: .disk, metadata: entry.metadata)
    }

    /// The bytes on disk for `key`, if any.
    public func diskData(forKey key: String) async -> Data? {
        await diskCache.data(forKey: key)
    }

    /// The disk metadata (validators, stored date) for `key`, if it has a disk entry.
    public func metadata(forKey key: String) async -> CacheMetadata? {
        await diskCache.metadata(forKey: key)
    }

    /// Which cache holds `key`: ``CacheType/memory`` (checked first), ``CacheType/disk``,
    /// or ``CacheType/none``.
    public func contains(forKey key: String) async -> CacheType {
        if memoryCache.contains(key) { return .memory }
        return await diskCache.contains(forKey: key) ? .disk : .none
    }

    /// The path of `key`'s disk file in the cache's own directory.
    public func cachePath(forKey key: String) -> String {
        diskCache.cachePath(forKey: key)
    }

    // MARK: Removing

    /// Removes `key` from the caches `cacheType` names.
    public func remove(forKey key: String, cacheType: CacheType = .all) async {
        if cacheType.includesMemory {
            memoryCache.removeValue(forKey: key)
        }
        if cacheType.includesDisk {
            await diskCache.remove(forKey: key)
        }
    }

    /// Empties the memory cache.
    public func clearMemory() {
        memoryCache.removeAll()
    }

    /// Removes every disk entry.
    public func clearDisk() async {
        await diskCache.removeAll()
    }

    /// Removes expired disk entries and trims the disk cache to its size limit (see
    /// ``DiskCache/clean()``).
    @discardableResult
    public func clean() async -> DiskCacheCleanResult {
        await diskCache.clean()
    }

    /// The bytes the disk entries take.
    public func diskSize() async -> Int {
        await diskCache.totalSize()
    }

    /// The number of disk entries.
    public func diskCount() async -> Int {
        await diskCache.count()
    }
}
