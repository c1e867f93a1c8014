/// Hexadecimal digits, for decoders that read them byte by byte (percent escapes,
/// signing keys).
public enum HexDigit {
    /// The value of one hex digit (`0`–`9`, `a`–`f`, `A`–`F`); `nil` for any other byte.
    public static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
