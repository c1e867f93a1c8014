import Foundation

/// One file of a ``DiskCache`` as a directory listing sees it: no key, no bytes read.
public struct DiskCacheFileInfo: Sendable, Hashable {
    /// The file's full path.
    public var path: String
    /// The file's size in bytes (stored bytes, metadata and footer).
    public var size: Int
    /// When the entry was last written.
    public var modificationDate: Date
    /// When the entry was last read or written, as far as the cache keeps track (reads
    /// refresh it at most once a minute with ``CacheConfig/DiskExpireType/accessDate``).
    public var accessDate: Date

    /// Creates file information.
    public init(path: String, size: Int, modificationDate: Date, accessDate: Date) {
        self.path = path
        self.size = size
        self.modificationDate = modificationDate
        self.accessDate = accessDate
    }
}

/// One valid entry of a ``DiskCache`` read back without its bytes: where it is, its key and
/// its metadata (validators, stored date, source URL).
public struct DiskCacheStoredEntry: Sendable, Hashable {
    /// The file's full path.
    public var path: String
    /// The key the entry was stored under.
    public var key: String
    /// The metadata stored with it.
    public var metadata: CacheMetadata
    /// The number of stored bytes (the encoded image, without metadata).
    public var dataSize: Int

    /// Creates a stored entry description.
    public init(path: String, key: String, metadata: CacheMetadata, dataSize: Int) {
        self.path = path
        self.key = key
        self.metadata = metadata
        self.dataSize = dataSize
    }
}
