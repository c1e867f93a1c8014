/// Limits checked from an image's header, before any pixel is decoded.
///
/// They keep a decompression bomb — a few kilobytes declaring billions of pixels — from
/// taking the process's memory.
public struct ImageLimits: Sendable, Hashable {
    /// The most pixels an image may declare, counting every frame (width × height × frames).
    public var maxPixels: Int
    /// The most frames an animated image may have.
    public var maxFrames: Int

    /// Creates limits; the defaults are 50 megapixels and 1,000 frames.
    public init(maxPixels: Int = 50_000_000, maxFrames: Int = 1_000) {
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
    }

    /// 50 megapixels (frames counted) and 1,000 frames.
    public static let `default` = ImageLimits()
}
