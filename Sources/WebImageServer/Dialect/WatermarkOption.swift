import WebImage

/// A watermark put over the processed image (imgproxy's
/// `watermark:opacity:position:x_offset:y_offset:scale`); the mark itself is the server's
/// configured watermark image.
public struct WatermarkOption: Sendable, Hashable {
    /// Opacity 0…1, multiplied by the server's base watermark opacity; 0 turns it off.
    public var opacity: Double
    /// Where the mark goes.
    public var position: WatermarkPosition
    /// Horizontal offset: from the anchored edge inwards (from the centre rightwards for
    /// `ce`, `no`, `so`), or the spacing between tiles when replicated. 1 or more (or -1 or
    /// less) is in CSS pixels (times ``ProcessingOptions/dpr``); between -1 and 1 a fraction
    /// of the image width.
    public var xOffset: Double
    /// Vertical offset, as ``xOffset`` along the other axis.
    public var yOffset: Double
    /// The mark fitted into this fraction of the image's width and height; 0 keeps its size.
    public var scale: Double

    /// Creates a watermark option.
    public init(opacity: Double, position: WatermarkPosition = .anchor(.center), xOffset: Double = 0, yOffset: Double = 0, scale: Double = 0) {
        self.opacity = opacity
        self.position = position
        self.xOffset = xOffset
        self.yOffset = yOffset
        self.scale = scale
    }
}

/// Where a watermark goes: at one of the nine anchors, or tiled over the whole image (`re`).
public enum WatermarkPosition: Sendable, Hashable {
    /// At an anchor (`ce`, `no`, `soea`…).
    case anchor(GravityAnchor)
    /// Repeated to cover the image, the tiles centred (`re`).
    case replicate

    /// The name in URLs: the anchor's, or `re`.
    public var name: String {
        switch self {
        case .anchor(let anchor): anchor.rawValue
        case .replicate: "re"
        }
    }

    /// The position a URL names, if any.
    public init?(name: Substring) {
        if name == "re" {
            self = .replicate
        } else if let anchor = GravityAnchor(rawValue: String(name)) {
            self = .anchor(anchor)
        } else {
            return nil
        }
    }
}
