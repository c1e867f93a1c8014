/// Where a crop, fill or extension anchors the image: which part is kept when cutting,
/// or where the image sits on a larger canvas.
public enum Gravity: Sendable, Hashable {
    /// The middle.
    case center
    /// The top edge, centred horizontally.
    case north
    /// The bottom edge, centred horizontally.
    case south
    /// The right edge, centred vertically.
    case east
    /// The left edge, centred vertically.
    case west
    /// The top-right corner.
    case northEast
    /// The top-left corner.
    case northWest
    /// The bottom-right corner.
    case southEast
    /// The bottom-left corner.
    case southWest
    /// The most interesting region, found by libvips' attention strategy (skin tones,
    /// saturated colour, edges). Where it does not apply (an extension, an animation, whose
    /// frames must all be cut at one place) it acts as ``center``.
    case smart
    /// A point given as fractions of the width and height (0...1 each, 0 = left/top):
    /// the kept region is centred on it as far as the image edges allow.
    case focusPoint(x: Double, y: Double)

    /// A short code for transformer keys: imgproxy's gravity names (`ce`, `no`, `noea`,
    /// `sm`…), and `fp<x>-<y>` for a focus point.
    public var keyComponent: String {
        switch self {
        case .center: "ce"
        case .north: "no"
        case .south: "so"
        case .east: "ea"
        case .west: "we"
        case .northEast: "noea"
        case .northWest: "nowe"
        case .southEast: "soea"
        case .southWest: "sowe"
        case .smart: "sm"
        case .focusPoint(let x, let y): "fp\(TransformKey.number(x))-\(TransformKey.number(y))"
        }
    }

    /// Where along each axis the anchored region sits: 0 = left/top, 0.5 = centre, 1 = right/bottom.
    var anchor: (x: Double, y: Double) {
        switch self {
        case .center, .smart: (0.5, 0.5)
        case .north: (0.5, 0)
        case .south: (0.5, 1)
        case .east: (1, 0.5)
        case .west: (0, 0.5)
        case .northEast: (1, 0)
        case .northWest: (0, 0)
        case .southEast: (1, 1)
        case .southWest: (0, 1)
        case .focusPoint(let x, let y): (x, y)
        }
    }

    /// Throws when a focus point lies outside 0...1 (or is not a number).
    func validate() throws(ImageError) {
        if case .focusPoint(let x, let y) = self, !((0...1).contains(x) && (0...1).contains(y)) {
            throw .invalidTransform("the focus point (\(x), \(y)) must have both coordinates in 0...1 (fractions of the width and height)")
        }
    }

    /// The top-left corner of a `region` inside `outer` (the region no larger than `outer`):
    /// compass gravities align edges; a focus point centres the region on the point, clamped
    /// to the edges.
    func offset(of region: PixelSize, in outer: PixelSize) -> (x: Int, y: Int) {
        let freeX = outer.width - region.width, freeY = outer.height - region.height
        switch self {
        case .focusPoint(let fx, let fy):
            let x = Int((fx * Double(outer.width) - Double(region.width) / 2).rounded())
            let y = Int((fy * Double(outer.height) - Double(region.height) / 2).rounded())
            return (min(max(0, x), freeX), min(max(0, y), freeY))
        default:
            let anchor = self.anchor
            return (Int(Double(freeX) * anchor.x), Int(Double(freeY) * anchor.y))
        }
    }

    /// The top-left corner of an image of `inner` size placed on a larger `canvas`: the
    /// compass gravities align edges; a focus point (fx, fy) leaves fx of the free width
    /// on the left and fy of the free height above.
    func placement(of inner: PixelSize, on canvas: PixelSize) -> (x: Int, y: Int) {
        let anchor = self.anchor
        let x = Int((Double(canvas.width - inner.width) * anchor.x).rounded(.down))
        let y = Int((Double(canvas.height - inner.height) * anchor.y).rounded(.down))
        return (x, y)
    }
}
