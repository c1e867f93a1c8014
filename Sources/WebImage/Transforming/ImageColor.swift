/// A colour with alpha, 8 bits a channel, in sRGB: the background, border and tint
/// colour of the built-in transformers.
public struct ImageColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0–255.
    public var red: UInt8
    /// Green, 0–255.
    public var green: UInt8
    /// Blue, 0–255.
    public var blue: UInt8
    /// Alpha, 0 (transparent) – 255 (opaque).
    public var alpha: UInt8

    /// Creates a colour from 0–255 channel values; opaque unless `alpha` says otherwise.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Parses `RRGGBB` or `RRGGBBAA` hexadecimal digits (either case), with or without a
    /// leading `#`: `"ff8000"`, `"#FF800080"`.
    public init(hex: String) throws(ImageError) {
        let digits = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit),
              let value = UInt32(digits, radix: 16) else {
            throw .invalidTransform("'\(hex)' is not a colour: write RRGGBB or RRGGBBAA in hexadecimal, e.g. ff8000 or ff800080")
        }
        let rgba = digits.count == 6 ? value << 8 | 0xFF : value
        self.init(
            red: UInt8(truncatingIfNeeded: rgba >> 24), green: UInt8(truncatingIfNeeded: rgba >> 16),
            blue: UInt8(truncatingIfNeeded: rgba >> 8), alpha: UInt8(truncatingIfNeeded: rgba)
        )
    }

    /// Opaque black.
    public static let black = ImageColor(red: 0, green: 0, blue: 0)
    /// Opaque white.
    public static let white = ImageColor(red: 255, green: 255, blue: 255)
    /// Fully transparent (black with alpha 0).
    public static let transparent = ImageColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// `rrggbbaa` in lowercase hexadecimal, as used in transformer keys.
    public var hex: String {
        [red, green, blue, alpha].map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    /// Whether the colour is fully opaque.
    public var isOpaque: Bool { alpha == 255 }

    /// Whether red, green and blue are equal, so a grey image can take the colour as it is.
    public var isGrey: Bool { red == green && green == blue }

    /// `#rrggbbaa`.
    public var description: String { "#" + hex }
}
