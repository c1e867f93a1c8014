import Foundation

/// What ``ImageCaching/query(forKey:cacheType:decodeOptions:)`` found.
public struct CacheQueryResult: Sendable {
    /// The decoded image.
    public var image: Image
    /// The encoded bytes, for a disk hit; `nil` for a memory hit (memory holds images only).
    public var data: Data?
    /// Which cache answered: ``CacheType/memory`` or ``CacheType/disk``.
    public var cacheType: CacheType
    /// The entry's metadata, for a disk hit.
    public var metadata: CacheMetadata?

    /// Creates a result.
    public init(image: Image, data: Data?, cacheType: CacheType, metadata: CacheMetadata? = nil) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.metadata = metadata
    }
}
