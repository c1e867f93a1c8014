import Foundation

/// The disk tier of a chain of caches: each call runs over the caches' disk tiers as the
/// manager's policies say, on the calling thread (an I/O or coding thread of WebImage's).
extension ImageCachesManager: ImageDiskCaching {
    /// The entry for `key` from the first cache ``queryPolicy`` finds it in, highest priority
    /// first; with ``fillsHigherCachesOnHit``, the caches above it store it too.
    public func entrySync(forKey key: String) -> DiskCacheEntry? {
        let (caches, policy, fills) = selection(\.queryPolicy)
        guard let (index, entry) = firstHit(in: caches, concurrently: policy == .concurrent, { $0.diskTier.entrySync(forKey: key) }) else {
            return nil
        }
        if fills, index > 0 {
            _ = each(Array(caches[..<index]), concurrently: true) { cache in
                try? cache.diskTier.storeSync(entry.data, forKey: key, metadata: entry.metadata)
            }
        }
        return entry
    }

    /// Stores in the disk tiers of the caches ``storePolicy`` names. The first error a tier
    /// throws is thrown after every cache was asked.
    public func storeSync(_ data: Data, forKey key: String, metadata: CacheMetadata) throws(ImageError) {
        let (caches, policy, _) = selection(\.storePolicy)
        let errors = each(caches, concurrently: policy == .concurrent) { cache -> ImageError? in
            do throws(ImageError) {
                try cache.diskTier.storeSync(data, forKey: key, metadata: metadata)
                return nil
            } catch {
                return error
            }
        }
        if let error = errors.compactMap({ $0 }).first { throw error }
    }

    /// Whether a cache ``containsPolicy`` asks has an entry for `key`.
    public func containsSync(forKey key: String) -> Bool {
        let (caches, policy, _) = selection(\.containsPolicy)
        return firstHit(in: caches, concurrently: policy == .concurrent) { $0.diskTier.containsSync(forKey: key) ? true : nil } != nil
    }

    /// Replaces the metadata of `key`'s entry in every cache that holds one; `false` when
    /// none does.
    public func updateMetadataSync(_ metadata: CacheMetadata, forKey key: String) throws(ImageError) -> Bool {
        var updated = false
        for cache in caches.reversed() {
            if try cache.diskTier.updateMetadataSync(metadata, forKey: key) { updated = true }
        }
        return updated
    }

    /// Removes `key`'s entry from the caches ``removePolicy`` names.
    public func removeSync(forKey key: String) {
        let (caches, policy, _) = selection(\.removePolicy)
        _ = each(caches, concurrently: policy == .concurrent) { $0.diskTier.removeSync(forKey: key) }
    }

    /// Removes every entry from the caches ``clearPolicy`` names.
    public func removeAllSync() {
        let (caches, policy, _) = selection(\.clearPolicy)
        _ = each(caches, concurrently: policy == .concurrent) { $0.diskTier.removeAllSync() }
    }

    /// Cleans every cache's disk tier by its own rules; the counts are their sums.
    public func cleanSync() -> DiskCacheCleanResult {
        let results = caches.map { $0.diskTier.cleanSync() }
        return DiskCacheCleanResult(
            expiredCount: results.reduce(0) { $0 + $1.expiredCount },
            trimmedCount: results.reduce(0) { $0 + $1.trimmedCount },
            removedBytes: results.reduce(0) { $0 + $1.removedBytes },
            temporaryFilesRemoved: results.reduce(0) { $0 + $1.temporaryFilesRemoved },
            remainingCount: results.reduce(0) { $0 + $1.remainingCount },
            remainingBytes: results.reduce(0) { $0 + $1.remainingBytes }
        )
    }

    /// The bytes the entries of every cache take.
    public func totalSizeSync() -> Int {
        caches.reduce(0) { $0 + $1.diskTier.totalSizeSync() }
    }

    /// The entries of every cache.
    public func countSync() -> Int {
        caches.reduce(0) { $0 + $1.diskTier.countSync() }
    }

    /// The file of `key`'s entry in the highest-priority cache, if its tier keeps files.
    public func filePath(forKey key: String) -> String? {
        caches.last?.diskTier.filePath(forKey: key)
    }
}
