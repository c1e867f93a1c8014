/// A colour a ``ThumbHash`` records, each channel 0…1 (red, green and blue not
/// premultiplied by alpha), as the reference implementation's `thumbHashToAverageRGBA` gives it.
public struct ThumbHashColor: Sendable, Hashable {
    /// Red, 0…1.
    public let red: Double
    /// Green, 0…1.
    public let green: Double
    /// Blue, 0…1.
    public let blue: Double
    /// Alpha, 0 (transparent) … 1 (opaque).
    public let alpha: Double

    /// Makes a colour from 0…1 channel values.
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// The colour in 8 bits a channel (each value × 255, rounded), e.g. for a background.
    public var imageColor: ImageColor {
        func byte(_ value: Double) -> UInt8 { UInt8((min(1, max(0, value)) * 255).rounded()) }
        return ImageColor(red: byte(red), green: byte(green), blue: byte(blue), alpha: byte(alpha))
    }
}
