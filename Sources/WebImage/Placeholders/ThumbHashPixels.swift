/// The placeholder a ``ThumbHash`` decodes to: RGBA pixels, row by row, 4 bytes each
/// (red, green, blue, alpha; not premultiplied).
public struct ThumbHashPixels: Sendable, Hashable {
    /// Width in pixels (32 for a landscape or square image).
    public let width: Int
    /// Height in pixels (32 for a portrait or square image).
    public let height: Int
    /// `width` × `height` × 4 bytes.
    public let rgba: [UInt8]

    /// Wraps decoded pixels.
    public init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
    }
}
