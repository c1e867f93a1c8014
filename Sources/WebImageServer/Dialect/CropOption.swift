/// The area cut from the source before it is resized (imgproxy's `crop:w:h:gravity`).
public struct CropOption: Sendable, Hashable {
    /// Width: 1 or more is pixels, between 0 and 1 a fraction of the source width,
    /// 0 the full source width.
    public var width: Double
    /// Height, with the same meaning as ``width``.
    public var height: Double
    /// Where the area sits; `nil` uses the request's ``ProcessingOptions/gravity``.
    public var gravity: ProxyGravity?

    /// Creates a crop area.
    public init(width: Double, height: Double, gravity: ProxyGravity? = nil) {
        self.width = width
        self.height = height
        self.gravity = gravity
    }
}
