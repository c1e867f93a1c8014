import Foundation

/// What every cache does, built from its two tiers: the disk tier is called on WebImage's
/// I/O pool (it may block), decoding and encoding run on the coding pool, and memory is
/// asked on the caller's thread.
extension ImageCaching {
    /// Runs `body` with the disk tier on the I/O pool; `nil` when the pool is shut down.
    private func onDisk<T: Sendable>(_ body: @escaping @Sendable (any ImageDiskCaching) -> T?) async -> T? {
        let disk = diskTier
        return await BlockingPools.run(on: BlockingPools.io) { () -> T? in body(disk) }
    }

    // MARK: Storing

    /// Stores `image` in memory and `data` with `metadata` on disk under `key`, as
    /// `cacheType` says.
    ///
    /// The memory store happens before this method first suspends, so the image is visible
    /// to ``imageFromMemory(forKey:)`` as soon as the call has started; the method returns
    /// once the disk entry is written. Without `data`, the image is encoded for the disk by
    /// ``coder`` (``ImageCache/diskFormat(for:coder:)``: its own format when the coder
    /// writes it, an animation as an animation). Without `image`, memory is left alone.
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
        let bytes: Data
        if let data {
            bytes = data
        } else if let image {
            let coder = self.coder
            bytes = try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> Data in
                try coder.encode(image, options: ImageEncodeOptions(format: ImageCache.diskFormat(for: image, coder: coder)))
            }
        } else {
            return
        }
        let disk = diskTier
        try await BlockingPools.run(on: BlockingPools.io) { () throws(ImageError) in try disk.storeSync(bytes, forKey: key, metadata: metadata) }
    }

    // MARK: Querying

    /// Looks `key` up in the tiers `cacheType` names: memory first, then disk.
    ///
    /// A disk hit is decoded by ``coder`` with `decodeOptions` on the coding pool, at the
    /// scale the key declares (``ImageScale/factor(forKey:)``), and, when `cacheType`
    /// includes memory, kept in memory under the key that decode belongs to
    /// (``ImageCache/memoryKey(forKey:decodeOptions:data:)``): a thumbnail decode under the
    /// thumbnail key (so the full-size key never answers with a thumbnail), a first-frame
    /// decode of an animation format not at all. Memory is asked under that same key, and
    /// with ``ImageDecodeOptions/firstFrameOnly`` a cached animation answers with its first
    /// frame. Disk bytes that are not a decodable image (``ImageError/badImageData(_:)``)
    /// are removed and read as a miss; bytes refused for another reason (a limit, an
    /// untrusted format) read as a miss and stay.
    public func query(
        forKey key: String,
        cacheType: CacheType = .all,
        decodeOptions: ImageDecodeOptions = ImageDecodeOptions()
    ) async -> CacheQueryResult? {
        if cacheType.includesMemory, let image = imageFromMemory(forKey: ImageCache.memoryLookupKey(forKey: key, decodeOptions: decodeOptions)) {
            return CacheQueryResult(image: ImageCache.applyingFirstFrameOnly(image, decodeOptions), data: nil, cacheType: .memory)
        }
        guard cacheType.includesDisk, let entry = await entry(forKey: key) else { return nil }
        let coder = self.coder
        let data = entry.data
        let image: Image
        do {
            image = try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> Image in
                try coder.decode(data, options: decodeOptions).withScale(ImageScale.factor(forKey: key))
            }
        } catch {
            if case .badImageData = error { await remove(forKey: key, cacheType: .disk) }
            return nil
        }
        if cacheType.includesMemory, let memoryKey = ImageCache.memoryKey(forKey: key, decodeOptions: decodeOptions, data: data) {
            storeToMemory(image, forKey: memoryKey)
        }
        return CacheQueryResult(image: image, data: data, cacheType: .disk, metadata: entry.metadata)
    }

    /// The stored bytes and metadata for `key`, undecoded, read on the I/O pool.
    public func entry(forKey key: String) async -> DiskCacheEntry? {
        await onDisk { disk -> DiskCacheEntry? in disk.entrySync(forKey: key) }
    }

    /// The stored bytes for `key`, if any.
    public func diskData(forKey key: String) async -> Data? {
        await entry(forKey: key)?.data
    }

    /// The metadata (validators, stored date) stored with `key`'s bytes, if any.
    public func metadata(forKey key: String) async -> CacheMetadata? {
        await entry(forKey: key)?.metadata
    }

    /// Which tier holds `key`: ``CacheType/memory`` (asked first: an image or a variant),
    /// ``CacheType/disk``, or ``CacheType/none``.
    public func contains(forKey key: String) async -> CacheType {
        if memoryTier.containsImage(forKey: key) || variantMemory?.contains(key) == true { return .memory }
        return await onDisk { disk -> Bool? in disk.containsSync(forKey: key) } == true ? .disk : .none
    }

    /// The file that holds `key`'s disk entry (whether or not it exists); `nil` when the
    /// disk tier keeps no file per entry.
    public func cachePath(forKey key: String) -> String? {
        diskTier.filePath(forKey: key)
    }

    // MARK: Removing

    /// Removes `key` from the tiers `cacheType` names (memory: the image and the variant).
    public func remove(forKey key: String, cacheType: CacheType = .all) async {
        if cacheType.includesMemory {
            memoryTier.removeImage(forKey: key)
            variantMemory?.removeValue(forKey: key)
        }
        if cacheType.includesDisk {
            _ = await onDisk { disk -> Bool? in
                disk.removeSync(forKey: key)
                return true
            }
        }
    }

    /// Removes every entry from the tiers `cacheType` names.
    public func clear(_ cacheType: CacheType) async {
        if cacheType.includesMemory { clearMemory() }
        if cacheType.includesDisk { await clearDisk() }
    }

    /// Empties memory: the images and the variants.
    public func clearMemory() {
        memoryTier.removeAllImages()
        variantMemory?.removeAll()
    }

    /// Removes every disk entry.
    public func clearDisk() async {
        _ = await onDisk { disk -> Bool? in
            disk.removeAllSync()
            return true
        }
    }

    // MARK: Maintenance

    /// Removes expired disk entries and trims the disk tier to its size limit, by the
    /// tier's rules (``ImageDiskCaching/cleanSync()``; for the built-in tier,
    /// ``DiskCache/clean()``).
    @discardableResult
    public func clean() async -> DiskCacheCleanResult {
        await onDisk { disk -> DiskCacheCleanResult? in disk.cleanSync() }
            ?? DiskCacheCleanResult(expiredCount: 0, trimmedCount: 0, removedBytes: 0, temporaryFilesRemoved: 0, remainingCount: 0, remainingBytes: 0)
    }

    /// The bytes the disk entries take.
    public func diskSize() async -> Int {
        await onDisk { disk -> Int? in disk.totalSizeSync() } ?? 0
    }

    /// The number of disk entries.
    public func diskCount() async -> Int {
        await onDisk { disk -> Int? in disk.countSync() } ?? 0
    }
}
