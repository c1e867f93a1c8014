/// Percent-decoding of a URL's text, as `removingPercentEncoding` does it (every `%` must
/// start a two-digit hex escape, either case; the bytes must be UTF-8), without the trip
/// through Foundation's `NSString`, which cost more than the rest of parsing a plain source.
enum PercentDecoding {
    /// `text` with every `%XX` replaced by its byte; `nil` when an escape is malformed or
    /// the bytes are not valid UTF-8. Text without `%` comes back as it is.
    static func decode(_ text: Substring) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            utf8.formIndex(after: &index)
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard index != utf8.endIndex, let high = hexValue(utf8[index]) else { return nil }
            utf8.formIndex(after: &index)
            guard index != utf8.endIndex, let low = hexValue(utf8[index]) else { return nil }
            utf8.formIndex(after: &index)
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The value of one hex digit, `nil` for any other byte.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
