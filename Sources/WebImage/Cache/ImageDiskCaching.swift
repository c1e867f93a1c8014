import Foundation

/// The disk tier of a cache (``ImageCaching/diskTier``): encoded bytes and their
/// ``CacheMetadata`` under string keys (SDWebImage's `SDDiskCache` protocol).
///
/// ``ImageCache`` keeps its bytes in a ``DiskCache`` unless it is given a tier of yours
/// (``ImageCache/init(config:coder:memoryTier:diskTier:)``, SDWebImage's
/// `SDImageCacheConfig.diskCacheClass`): a directory shared by several machines, a
/// key-value store, one that counts or logs. The memory tier stays as it is.
///
/// Like `SDDiskCache`'s, the calls are synchronous (hence their `Sync` names, as on
/// ``DiskCache``): WebImage makes them on its I/O and coding threads, which may block, never on the caller's thread — except
/// ``entrySync(forKey:)`` for a request with ``ImageOptions/queryDiskDataSync``, which asks
/// for exactly that. A tier over a network store blocks one of those threads for a
/// round trip per call. Every call may come from any thread at any time.
public protocol ImageDiskCaching: Sendable {
    /// The bytes and metadata stored for `key`, or `nil`. A damaged entry reads as `nil`.
    func entrySync(forKey key: String) -> DiskCacheEntry?

    /// Stores `data` with `metadata` for `key`, replacing any entry; the tier sets
    /// ``CacheMetadata/storedDate`` to the time of the write. A write that fails throws
    /// ``ImageError/cacheFailure(_:)``, leaving the old entry or none, never a torn one.
    func storeSync(_ data: Data, forKey key: String, metadata: CacheMetadata) throws(ImageError)

    /// Whether an entry is stored for `key` (it need not be read to tell).
    func containsSync(forKey key: String) -> Bool

    /// Replaces the metadata of `key`'s entry, keeping its bytes and writing
    /// ``CacheMetadata/storedDate`` as given (a renewed entry); `false` when there is no
    /// entry. The default reads the entry and stores its bytes again, which dates it now.
    func updateMetadataSync(_ metadata: CacheMetadata, forKey key: String) throws(ImageError) -> Bool

    /// Removes the entry for `key`, if any.
    func removeSync(forKey key: String)

    /// Removes every entry.
    func removeAllSync()

    /// Removes expired entries and trims to the tier's size limit, if it has such rules.
    /// The default removes nothing.
    func cleanSync() -> DiskCacheCleanResult

    /// The bytes the entries take.
    func totalSizeSync() -> Int

    /// The number of entries.
    func countSync() -> Int

    /// The file that holds `key`'s entry, for a tier that keeps one file per entry; the
    /// default is `nil`.
    func filePath(forKey key: String) -> String?
}

extension ImageDiskCaching {
    /// Nothing removed: a tier without expiry or size rules.
    public func cleanSync() -> DiskCacheCleanResult {
        let (count, bytes) = (countSync(), totalSizeSync())
        return DiskCacheCleanResult(expiredCount: 0, trimmedCount: 0, removedBytes: 0, temporaryFilesRemoved: 0, remainingCount: count, remainingBytes: bytes)
    }

    /// `nil`: a tier that keeps no file per entry.
    public func filePath(forKey key: String) -> String? { nil }

    /// The entry's bytes stored again with `metadata`.
    public func updateMetadataSync(_ metadata: CacheMetadata, forKey key: String) throws(ImageError) -> Bool {
        guard let entry = entrySync(forKey: key) else { return false }
        try storeSync(entry.data, forKey: key, metadata: metadata)
        return true
    }
}

/// The built-in disk tier: files under ``CacheConfig/diskDirectory``, with expiry and a
/// size limit.
extension DiskCache: ImageDiskCaching {
    /// ``cachePath(forKey:)``.
    public func filePath(forKey key: String) -> String? { cachePath(forKey: key) }
}
