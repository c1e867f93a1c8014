/// How ``ResizeTransformer`` fits an image into its box. The raw values are imgproxy's
/// resizing-type names.
public enum ResizeMode: String, Sendable, Hashable, CaseIterable {
    /// Inside the box, keeping the aspect ratio: the result is at most the box in both
    /// dimensions and equals it in at least one.
    case fit
    /// Covers the box, keeping the aspect ratio, and crops the overflow at the gravity:
    /// the result is exactly the box (or smaller, when enlarging is off and the image is).
    case fill
    /// Like ``fill`` but never enlarges: when the image is smaller than the box, the box
    /// is shrunk (keeping its aspect ratio) until it fits the image, and the image fills that.
    case fillDown = "fill-down"
    /// Exactly the box, ignoring the aspect ratio. Without enlarging, a box larger than the
    /// image in some dimension is first shrunk (keeping its aspect ratio) so that no
    /// dimension is enlarged, as imgproxy does.
    case force
}
