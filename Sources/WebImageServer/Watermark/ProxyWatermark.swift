import WebImage

/// The server's watermark image, decoded once, for the `watermark` option.
public struct ProxyWatermark: Sendable {
    /// The mark (its first frame when animated).
    public let image: Image
    /// A digest of the mark's bytes: the mark's part of the variant key, so that a
    /// different mark never serves a variant cached with another.
    public let digest: String
    /// Opacity 0…1 every URL's watermark opacity is multiplied by.
    public let baseOpacity: Double

    /// Creates a watermark.
    public init(image: Image, digest: String, baseOpacity: Double = 1) {
        self.image = image
        self.digest = digest
        self.baseOpacity = baseOpacity
    }
}
