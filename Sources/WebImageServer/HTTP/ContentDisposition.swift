import Foundation
import WebImage

/// A response's `Content-Disposition`, as imgproxy writes it:
/// `inline; filename="<stem>.<extension>"`, or `attachment; …` with `return_attachment`.
/// A name beyond ASCII is written as RFC 6266 says: an ASCII `filename` for old clients,
/// and the name itself in `filename*` (UTF-8, percent-encoded), which browsers prefer.
struct ContentDisposition: Sendable, Hashable {
    /// The file name without its extension.
    var stem: String
    /// Whether the browser is asked to save the file rather than show it.
    var attachment = false

    /// The URL's `filename` when it gives one, else the source's last path component
    /// without its extension (`image` when nothing is left).
    init(for request: ProxyRequest) {
        stem = request.options.filename ?? Self.stem(of: request.source)
        attachment = request.options.returnAttachment ?? false
    }

    init(stem: String, attachment: Bool = false) {
        self.stem = stem
        self.attachment = attachment
    }

    /// The header's value for a file of `format`. In the quoted `filename`, a `"`, `\` or
    /// control character is percent-encoded (imgproxy encodes `"` as `%22`), so the value
    /// stays one quoted string; beyond ASCII, each character there is `_` and `filename*`
    /// carries the name.
    func value(for format: ImageFormat) -> String {
        let name = stem + "." + format.fileExtension
        let type = attachment ? "attachment" : "inline"
        let isASCII = name.unicodeScalars.allSatisfy { $0.isASCII }
        var quoted = ""
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0x22, 0x5C, 0x00...0x1F, 0x7F: quoted += Self.percentEncoded(UInt8(scalar.value))
            case 0x80...: quoted += "_"
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        guard !isASCII else { return "\(type); filename=\"\(quoted)\"" }
        return "\(type); filename=\"\(quoted)\"; filename*=UTF-8''\(Self.extendedValue(name))"
    }

    /// `text` as an RFC 8187 value: its UTF-8 bytes, those that are not `attr-char`
    /// percent-encoded.
    static func extendedValue(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "+"), UInt8(ascii: "-"),
                 UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += percentEncoded(byte)
            }
        }
        return encoded
    }

    private static func percentEncoded(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return byte < 16 ? "%0" + hex : "%" + hex
    }

    /// The last path component of `source` (percent-decoded) without its extension, without
    /// control characters and slashes, at most 100 characters (`image` when nothing is left).
    static func stem(of source: URL) -> String {
        let base = (source.lastPathComponent as NSString).deletingPathExtension
        let kept = String(String.UnicodeScalarView(base.unicodeScalars.filter { scalar in
            !(scalar.properties.generalCategory == .control || scalar == "/" || scalar == "\\")
        })).trimmingCharacters(in: .whitespaces)
        let stem = String(kept.prefix(100))
        return stem.isEmpty ? "image" : stem
    }
}
