import Foundation

/// What a load produced.
public struct ImageResult: Sendable {
    /// The decoded image; `nil` only with ``ImageOptions/avoidDecodeImage``.
    public var image: Image?
    /// The image's bytes: the download, or disk cache bytes; `nil` for a memory hit
    /// (unless ``ImageOptions/queryMemoryData``) and for a partial progressive image.
    public var data: Data?
    /// Where the image came from: `.none` for a load, `.memory` or `.disk` for a hit.
    public var cacheType: CacheType
    /// The URL that was asked for.
    public var url: URL
    /// `false` for a progressive preview or a cached image about to be replaced by a
    /// refreshed one; the last result of every load is final.
    public var isFinal: Bool

    /// Creates a result.
    public init(image: Image?, data: Data?, cacheType: CacheType, url: URL, isFinal: Bool = true) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
        self.isFinal = isFinal
    }
}
