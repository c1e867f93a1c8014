/// The text of elements in the small XML documents S3 and STS answer with, found without a
/// full XML parser: their elements of interest hold text only and never repeat.
enum AWSXMLText {
    /// The text of the first `<name>…</name>` in `text`, XML entities decoded; `nil` when
    /// there is none or it is empty.
    static func element(_ name: String, in text: String) -> String? {
        guard let start = text.range(of: "<\(name)>"), let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex) else {
            return nil
        }
        let value = String(text[start.upperBound..<end.lowerBound])
            .replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"")
            .replacing("&apos;", with: "'").replacing("&amp;", with: "&")
        return value.isEmpty ? nil : value
    }
}
