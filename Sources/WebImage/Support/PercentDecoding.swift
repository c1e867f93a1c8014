/// Percent-decoding of a URL's text, as `removingPercentEncoding` does it (every `%` must
/// start a two-digit hex escape, either case; the bytes must be UTF-8), without the trip
/// through Foundation's `NSString`, which cost more than the rest of parsing a plain source.
public enum PercentDecoding {
    /// `text` with every `%XX` replaced by its byte; `nil` when an escape is malformed or
    /// the bytes are not valid UTF-8. Text without `%` comes back as it is.
    public static func decode(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        return bytes(text.utf8).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// `encoded` with every `%XX` replaced by its byte, as bytes (a `data:` URL's payload
    /// may be binary); `nil` when a `%` does not start two hex digits.
    public static func bytes(_ encoded: some Sequence<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.underestimatedCount)
        var iterator = encoded.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(HexDigit.value), let low = iterator.next().flatMap(HexDigit.value) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
