import Foundation
import WebImage

/// A response's `Content-Disposition`, as imgproxy writes it:
/// `inline; filename="<stem>.<extension>"`, or `attachment; …` with `return_attachment`.
struct ContentDisposition: Sendable, Hashable {
    /// The file name without its extension.
    var stem: String
    /// Whether the browser is asked to save the file rather than show it.
    var attachment = false

    /// The URL's `filename` when it gives one, else the source's last path component
    /// reduced to safe characters (`image` when nothing is left).
    init(for request: ProxyRequest) {
        stem = request.options.filename ?? Self.stem(of: request.source)
        attachment = request.options.returnAttachment ?? false
    }

    init(stem: String, attachment: Bool = false) {
        self.stem = stem
        self.attachment = attachment
    }

    /// The header's value for a file of `format`. A `"`, `\` or control character in the
    /// stem is percent-encoded (imgproxy encodes `"` as `%22`), so the value stays one
    /// quoted string.
    func value(for format: ImageFormat) -> String {
        var escaped = ""
        for scalar in stem.unicodeScalars {
            switch scalar.value {
            case 0x22, 0x5C, 0x00...0x1F, 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += scalar.value < 16 ? "%0" + hex : "%" + hex
            default:
                escaped.unicodeScalars.append(scalar)
            }
        }
        return "\(attachment ? "attachment" : "inline"); filename=\"\(escaped).\(format.fileExtension)\""
    }

    /// The last path component of `source` without its extension, reduced to safe
    /// characters (`image` when nothing is left).
    static func stem(of source: URL) -> String {
        let base = (source.lastPathComponent as NSString).deletingPathExtension
        // ASCII letters (the only ASCII scalars that are Alphabetic), digits and `-_.`.
        let safe = String(base.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x5F, 0x2E: true
            default: false
            }
        }.prefix(100))
        return safe.isEmpty || safe == "/" ? "image" : safe
    }
}
