/// Where to cut or pad an image (imgproxy's `gravity`).
public enum ProxyGravity: Sendable, Hashable {
    /// One of the nine anchors, with offsets along X and Y: a value of 1 or more (or
    /// -1 or less) is in pixels, a value between -1 and 1 is a fraction of the image size.
    case anchor(GravityAnchor, xOffset: Double, yOffset: Double)
    /// libvips' attention-based crop (`sm`): the most "interesting" part stays.
    case smart
    /// The centre of the result sits at this point of the source (`fp:x:y`), each
    /// coordinate between 0 and 1.
    case focusPoint(x: Double, y: Double)

    /// `ce:0:0`, the default.
    public static let center = ProxyGravity.anchor(.center, xOffset: 0, yOffset: 0)
}

/// The nine anchors of ``ProxyGravity``, named as in imgproxy URLs.
public enum GravityAnchor: String, Sendable, Hashable, CaseIterable {
    /// `ce`
    case center = "ce"
    /// `no`: the top edge.
    case north = "no"
    /// `so`: the bottom edge.
    case south = "so"
    /// `ea`: the right edge.
    case east = "ea"
    /// `we`: the left edge.
    case west = "we"
    /// `noea`: the top-right corner.
    case northEast = "noea"
    /// `nowe`: the top-left corner.
    case northWest = "nowe"
    /// `soea`: the bottom-right corner.
    case southEast = "soea"
    /// `sowe`: the bottom-left corner.
    case southWest = "sowe"
}
