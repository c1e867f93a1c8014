/// A rectangle in pixels: the top-left corner and a size.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// The left edge, in pixels from the image's left.
    public var x: Int
    /// The top edge, in pixels from the image's top.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rectangle from its top-left corner and size.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The rectangle's size.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// The part of this rectangle inside `bounds` (a rectangle at the origin); `nil` when
    /// they do not overlap.
    func clamped(to bounds: PixelSize) -> PixelRect? {
        let left = max(0, x), top = max(0, y)
        // Saturating sums: a rectangle reaching past Int.max still ends at the bounds.
        let (rightEdge, rightOverflow) = x.addingReportingOverflow(width)
        let (bottomEdge, bottomOverflow) = y.addingReportingOverflow(height)
        let right = rightOverflow ? bounds.width : min(bounds.width, rightEdge)
        let bottom = bottomOverflow ? bounds.height : min(bounds.height, bottomEdge)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// `x,y,WxH`.
    public var description: String { "\(x),\(y),\(width)x\(height)" }
}
