import Foundation

/// Takes what could load another document or run code out of CSS: the text of a `<style>`
/// element, a `style` attribute, or a presentation attribute such as `fill="url(…)"`.
///
/// - `@import` rules are removed, up to their `;`.
/// - `url(…)` keeps a same-document reference (`url(#gradient)`) or an embedded image
///   (`url(data:image/png;base64,…)`); any other becomes `none`.
/// - Text with `expression(`, `javascript:`, `-moz-binding`, `behavior`, or an image
///   function that takes a bare URL (`image-set(`, `image(`, `cross-fade(`) is dropped whole.
/// - Comments become a space first, so that `@im/**/port` cannot join into `@import`.
/// - Text written with CSS escapes (`@\69mport`, `u\72l(`) is read with the escapes
///   decoded; when that reading has any of the constructs above, the text is dropped whole.
enum SVGStyleSanitizer {
    /// `css` without its external references and active content.
    static func sanitize(_ css: String) -> String {
        var bytes = withoutComments(Array(css.utf8))
        if bytes.contains(UInt8(ascii: "\\")) {
            let decoded = lowercased(decodingEscapes(bytes))
            let risky = ["@import", "url(", "expression(", "javascript:", "binding", "behavior", "image-set(", "image(", "cross-fade("]
            return risky.contains(where: { decoded.contains($0) }) ? "" : String(decoding: bytes, as: UTF8.self)
        }
        let lowered = lowercased(bytes)
        let dropped = ["expression(", "javascript:", "-moz-binding", "behavior", "image-set(", "image(", "cross-fade("]
        if dropped.contains(where: { lowered.contains($0) }) { return "" }
        bytes = withoutImports(bytes)
        return String(decoding: withSafeURLs(bytes), as: UTF8.self)
    }

    /// Whether `target`, the argument of `url(…)` or an `href`, stays in the document or
    /// embeds an image: `#id`, or `data:image/…`.
    static func isEmbedded(_ target: String) -> Bool {
        let lowered = target.lowercased()
        return lowered.hasPrefix("#") || lowered.hasPrefix("data:image/")
    }

    private static func withoutComments(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                var end = index + 2
                while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) { end += 1 }
                // An unterminated comment runs to the end of the text.
                index = end + 2
                result.append(UInt8(ascii: " "))
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    /// `bytes` without `@import …;` rules.
    private static func withoutImports(_ bytes: [UInt8]) -> [UInt8] {
        let lowered = bytes.map(lowercasedByte)
        let keyword = Array("@import".utf8)
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if lowered[index...].starts(with: keyword) {
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
                index = end + 1
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    /// `bytes` with every `url(…)` that is not ``isEmbedded(_:)`` replaced by `none`.
    private static func withSafeURLs(_ bytes: [UInt8]) -> [UInt8] {
        let lowered = bytes.map(lowercasedByte)
        let function = Array("url(".utf8)
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard lowered[index...].starts(with: function) else {
                result.append(bytes[index])
                index += 1
                continue
            }
            var end = index + function.count
            var quote: UInt8?
            while end < bytes.count {
                let byte = bytes[end]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ")") {
                    break
                }
                end += 1
            }
            let argument = String(decoding: bytes[(index + function.count)..<min(end, bytes.count)], as: UTF8.self)
            let target = argument.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            if isEmbedded(target.trimmingCharacters(in: .whitespacesAndNewlines)) {
                result.append(contentsOf: bytes[index..<min(end + 1, bytes.count)])
            } else {
                result.append(contentsOf: Array("none".utf8))
            }
            index = end + 1
        }
        return result
    }

    /// The text CSS reads from `bytes`: `\` and up to six hex digits (and one white space
    /// after them) is that code point, `\` and a line break nothing, `\` and another
    /// character that character.
    private static func decodingEscapes(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        let text = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        var index = 0
        while index < text.count {
            guard text[index] == "\\", index + 1 < text.count else {
                scalars.append(text[index])
                index += 1
                continue
            }
            index += 1
            var hex = ""
            while hex.count < 6, index < text.count, text[index].properties.isASCIIHexDigit {
                hex.unicodeScalars.append(text[index])
                index += 1
            }
            if hex.isEmpty {
                if text[index] != "\n" { scalars.append(text[index]) }
                index += 1
            } else {
                scalars.append(UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init) ?? "\u{FFFD}")
                if index < text.count, [" ", "\t", "\n"].contains(text[index]) { index += 1 }
            }
        }
        return String(scalars)
    }

    /// `byte` with an ASCII capital lower-cased: offsets into lower-cased bytes are offsets
    /// into the original.
    private static func lowercasedByte(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// `bytes` as text with ASCII letters lower-cased.
    private static func lowercased(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.map(lowercasedByte), as: UTF8.self)
    }

    private static func lowercased(_ text: String) -> String {
        lowercased(Array(text.utf8))
    }
}
