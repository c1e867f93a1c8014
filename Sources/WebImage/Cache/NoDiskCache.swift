import Foundation

/// A disk tier that keeps nothing: an ``ImageCache`` given it holds its entries in memory
/// only, and makes no directory and no file. Every read is a miss; a write is dropped.
public struct NoDiskCache: ImageDiskCaching {
    /// Creates the tier.
    public init() {}

    /// `nil`: nothing is kept.
    public func entrySync(forKey key: String) -> DiskCacheEntry? { nil }
    /// Drops the bytes.
    public func storeSync(_ data: Data, forKey key: String, metadata: CacheMetadata) throws(ImageError) {}
    /// `false`: nothing is kept.
    public func containsSync(forKey key: String) -> Bool { false }
    /// Nothing to remove.
    public func removeSync(forKey key: String) {}
    /// Nothing to remove.
    public func removeAllSync() {}
    /// 0.
    public func totalSizeSync() -> Int { 0 }
    /// 0.
    public func countSync() -> Int { 0 }
}
