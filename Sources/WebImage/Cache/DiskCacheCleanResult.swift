/// What a ``DiskCache/clean()`` did.
public struct DiskCacheCleanResult: Sendable, Hashable {
    /// Entries removed because they were older than ``CacheConfig/maxDiskAge``.
    public var expiredCount: Int
    /// Entries removed to bring the size under half of ``CacheConfig/maxDiskSize``.
    public var trimmedCount: Int
    /// Bytes freed by removing entries.
    public var removedBytes: Int
    /// Temporary files left by interrupted writes that were removed.
    public var temporaryFilesRemoved: Int
    /// Entries left after the clean.
    public var remainingCount: Int
    /// Bytes the remaining entries take.
    public var remainingBytes: Int
    /// Entries that were to be removed (expired, or trimmed) but could not be: the
    /// directory is read-only, or the process may not delete in it.
    public var failedRemovals: Int

    /// Creates a result.
    public init(
        expiredCount: Int, trimmedCount: Int, removedBytes: Int, temporaryFilesRemoved: Int, remainingCount: Int, remainingBytes: Int,
        failedRemovals: Int = 0
    ) {
        self.failedRemovals = failedRemovals
        self.expiredCount = expiredCount
        self.trimmedCount = trimmedCount
        self.removedBytes = removedBytes
        self.temporaryFilesRemoved = temporaryFilesRemoved
        self.remainingCount = remainingCount
        self.remainingBytes = remainingBytes
    }
}
