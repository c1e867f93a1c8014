import Foundation

/// One disk cache entry as read back: the stored bytes and their metadata.
public struct DiskCacheEntry: Sendable, Hashable {
    /// The bytes that were stored (an encoded image, normally).
    public var data: Data
    /// The metadata stored with them. For a plain file found in a read-only path it holds
    /// no validators and the file's modification date as ``CacheMetadata/storedDate``.
    public var metadata: CacheMetadata
    /// The key the entry was stored under, when the file records it (every entry this
    /// cache writes does; plain files in read-only paths do not).
    public var key: String?

    /// Creates an entry.
    public init(data: Data, metadata: CacheMetadata, key: String? = nil) {
        self.data = data
        self.metadata = metadata
        self.key = key
    }
}
