/// Space added around the processed image (imgproxy's `padding:top:right:bottom:left`), in
/// CSS pixels: multiplied by the ``ProcessingOptions/dpr``, filled with the background.
public struct ImagePadding: Sendable, Hashable {
    /// Pixels above the image.
    public var top: Int
    /// Pixels right of the image.
    public var right: Int
    /// Pixels below the image.
    public var bottom: Int
    /// Pixels left of the image.
    public var left: Int

    /// Creates a padding; CSS order: top, right, bottom, left.
    public init(top: Int, right: Int, bottom: Int, left: Int) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
    }
}
