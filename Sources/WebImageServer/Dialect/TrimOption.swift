import WebImage

/// Background cut away from the source before it is processed (imgproxy's
/// `trim:threshold:colour:equal_hor:equal_ver`).
public struct TrimOption: Sendable, Hashable {
    /// How far a colour may be from the background and still count as background.
    public var threshold: Double
    /// The background colour; `nil` takes the colour of the top-left pixel.
    public var color: ImageColor?
    /// Cut as much from the right as from the left: the smaller of the two.
    public var equalHorizontal: Bool
    /// Cut as much from the bottom as from the top: the smaller of the two.
    public var equalVertical: Bool

    /// Creates a trim.
    public init(threshold: Double, color: ImageColor? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
        self.threshold = threshold
        self.color = color
        self.equalHorizontal = equalHorizontal
        self.equalVertical = equalVertical
    }
}
