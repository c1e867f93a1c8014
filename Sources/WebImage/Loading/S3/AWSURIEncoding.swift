/// Percent-encoding as AWS Signature Version 4 defines it: every byte of the UTF-8 text
/// except the unreserved characters `A-Z a-z 0-9 - . _ ~` becomes `%XY` with upper-case hex.
/// A space is `%20`, never `+`.
public enum AWSURIEncoding {
    /// `text` encoded; with `keepingSlashes`, `/` stays as it is (an object key in a path).
    public static func encode(_ text: some StringProtocol, keepingSlashes: Bool = false) -> String {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepingSlashes && byte == UInt8(ascii: "/")) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hex[Int(byte >> 4)])
                encoded.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
