/// Undoes what browsers, CDNs and reverse proxies do to proxy paths on the way, as
/// imgproxy does before it checks the signature and parses the options (its
/// `RedenormalizePath`): in the options part `%3A` becomes `:` again, and in a plain source
/// a `scheme:/host` with its double slash merged becomes `scheme://host` again
/// (`local:/x` becomes `local:///x`). The signature is checked against the result, so a URL
/// signed before the mangling still matches.
enum ProxyPathNormalization {
    /// `path` (everything after the signature segment, without its leading `/`) restored;
    /// without a leading `/`.
    static func redenormalized(_ path: Substring) -> String {
        let options: Substring
        let plainURL: Substring?
        if path.hasPrefix("plain/") {
            options = ""
            plainURL = path.dropFirst(6)
        } else if let marker = path.firstRange(of: "/plain/") {
            options = path[..<marker.lowerBound]
            plainURL = path[marker.upperBound...]
        } else {
            options = path
            plainURL = nil
        }
        // Only the upper-case escape, as imgproxy.
        let restored = String(options.replacing("%3A", with: ":"))
        guard let plainURL else { return restored.trimmingLeadingSlash }
        return (restored + "/plain/" + fixedScheme(plainURL)).trimmingLeadingSlash
    }

    /// `url` with a merged `scheme:/x` restored to `scheme://x`. Like imgproxy's
    /// `^(\S+):/([^/])`, the scheme is the longest run without whitespace that is followed
    /// by `:/` and a character other than `/`; only that first match is replaced.
    static func fixedScheme(_ url: Substring) -> String {
        let bytes = Array(url.utf8)
        let firstSpace = bytes.firstIndex { [0x09, 0x0A, 0x0C, 0x0D, 0x20].contains($0) } ?? bytes.count
        var split: Int?
        // The greedy run ends as late as it can: try the last candidate first.
        var position = min(firstSpace, bytes.count - 3)
        while position >= 1 {
            if bytes[position] == UInt8(ascii: ":"), bytes[position + 1] == UInt8(ascii: "/"), bytes[position + 2] != UInt8(ascii: "/") {
                split = position
                break
            }
            position -= 1
        }
        guard let split else { return String(url) }
        let scheme = bytes[..<split]
        var fixed = Array(scheme) + Array("://".utf8)
        if scheme.elementsEqual("local".utf8) { fixed.append(UInt8(ascii: "/")) }
        fixed += bytes[(split + 2)...]
        return String(decoding: fixed, as: UTF8.self)
    }
}

private extension String {
    /// Without one leading `/`.
    var trimmingLeadingSlash: String { hasPrefix("/") ? String(dropFirst()) : self }
}
