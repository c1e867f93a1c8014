import WebImage

/// The one spelling of an http(s) source URL that the allowed sources, the URL rewrites and
/// the download all see, so that no other spelling of a path can pass a check the
/// download then escapes: scheme and host lower-cased; in the path, escapes of unreserved
/// characters decoded (`%2e` is `.`, RFC 3986 §6.2.2.2), runs of `/` made one, and `.` and
/// `..` segments removed (RFC 3986 §5.2.4). The query and the fragment stay as written.
///
/// A path may still hold `%2F` or `%5C`, which some origins read as `/`: the allowed
/// sources are checked on ``checkedForms(of:)``, which reads them both ways.
enum SourceURLNormalization {
    /// `text` normalised when it is an http(s) URL with an authority; otherwise as it is.
    static func normalized(_ text: String) -> String {
        guard let parts = Parts(text) else { return text }
        return parts.prefix + removingDotSegments(mergingSlashes(decodingUnreserved(parts.path))) + parts.rest
    }

    /// The spellings a prefix must hold for: the normalised URL, and the same with `%2F`,
    /// `%5C` and `\` read as `/` before the dot segments are removed.
    static func checkedForms(of text: String) -> [String] {
        guard let parts = Parts(text) else { return [text] }
        let path = decodingUnreserved(parts.path)
        let normal = parts.prefix + removingDotSegments(mergingSlashes(path)) + parts.rest
        var slashes = path.replacing("\\", with: "/")
        for escape in ["%2F", "%2f", "%5C", "%5c"] { slashes = slashes.replacing(escape, with: "/") }
        guard slashes != path else { return [normal] }
        return [normal, parts.prefix + removingDotSegments(mergingSlashes(slashes)) + parts.rest]
    }

    /// A URL cut where normalisation applies: the scheme and authority (lower-cased), the
    /// path, and the query and fragment.
    private struct Parts {
        var prefix: String
        var path: String
        var rest: String

        init?(_ text: String) {
            guard let schemeEnd = text.range(of: "://") else { return nil }
            let scheme = text[..<schemeEnd.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else { return nil }
            let authorityEnd = text[schemeEnd.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? text.endIndex
            let pathEnd = text[authorityEnd...].firstIndex(where: { $0 == "?" || $0 == "#" }) ?? text.endIndex
            prefix = text[..<authorityEnd].lowercased()
            path = String(text[authorityEnd..<pathEnd])
            rest = String(text[pathEnd...])
        }
    }

    /// Escapes of letters, digits, `-`, `.`, `_` and `~` decoded; other escapes as written.
    static func decodingUnreserved(_ path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: "%")) else { return path }
        var bytes = Array(path.utf8)
        var index = 0
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2]) {
                let byte = high << 4 | low
                if isUnreserved(byte) {
                    out.append(byte)
                    index += 3
                    continue
                }
            }
            out.append(bytes[index])
            index += 1
        }
        bytes = out
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Every run of `/` made one.
    static func mergingSlashes(_ path: String) -> String {
        guard path.contains("//") else { return path }
        var out = ""
        out.reserveCapacity(path.utf8.count)
        var previousSlash = false
        for character in path {
            if character == "/" {
                if previousSlash { continue }
                previousSlash = true
            } else {
                previousSlash = false
            }
            out.append(character)
        }
        return out
    }

    /// RFC 3986's `remove_dot_segments` on an absolute path (or an empty one).
    static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        // The path starts with "/": the first segment is empty.
        for (index, segment) in segments.enumerated() where index > 0 {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return path.hasPrefix("/") || !output.isEmpty ? "/" + output.joined(separator: "/") : ""
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
