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
        // Bytes, as imgproxy's Go: the markers are ASCII.
        let bytes = Array(path.utf8)
        let marker = Array("/plain/".utf8)
        let optionsEnd: Int
        let plainStart: Int?
        if bytes.starts(with: marker.dropFirst()) {
            (optionsEnd, plainStart) = (0, marker.count - 1)
        } else if let found = Self.firstIndex(of: marker, in: bytes) {
            (optionsEnd, plainStart) = (found, found + marker.count)
        } else {
            (optionsEnd, plainStart) = (bytes.count, nil)
        }
        var restored: [UInt8] = []
        restored.reserveCapacity(bytes.count + 8)
        // Only the upper-case escape, as imgproxy.
        var index = 0
        while index < optionsEnd {
            if index + 2 < optionsEnd, bytes[index] == UInt8(ascii: "%"), bytes[index + 1] == UInt8(ascii: "3"),
               bytes[index + 2] == UInt8(ascii: "A") {
                restored.append(UInt8(ascii: ":"))
                index += 3
            } else {
                restored.append(bytes[index])
                index += 1
            }
        }
        if let plainStart {
            restored += marker
            restored += fixedScheme(bytes[plainStart...])
        }
        if restored.first == UInt8(ascii: "/") { restored.removeFirst() }
        return String(decoding: restored, as: UTF8.self)
    }

    /// Where `needle` first starts in `bytes`.
    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<start + needle.count].elementsEqual(needle) { return start }
        }
        return nil
    }

    /// `url` with a merged `scheme:/x` restored to `scheme://x`. Like imgproxy's
    /// `^(\S+):/([^/])`, the scheme is the longest run without whitespace that is followed
    /// by `:/` and a character other than `/`; only that first match is replaced.
    static func fixedScheme(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        let start = bytes.startIndex
        let firstSpace = bytes.firstIndex { [0x09, 0x0A, 0x0C, 0x0D, 0x20].contains($0) } ?? bytes.endIndex
        var split: Int?
        // The greedy run ends as late as it can: try the last candidate first.
        var position = min(firstSpace, bytes.endIndex - 3)
        while position >= start + 1 {
            if bytes[position] == UInt8(ascii: ":"), bytes[position + 1] == UInt8(ascii: "/"), bytes[position + 2] != UInt8(ascii: "/") {
                split = position
                break
            }
            position -= 1
        }
        guard let split else { return Array(bytes) }
        let scheme = bytes[..<split]
        var fixed = Array(scheme) + Array("://".utf8)
        if scheme.elementsEqual("local".utf8) { fixed.append(UInt8(ascii: "/")) }
        fixed += bytes[(split + 2)...]
        return fixed
    }
}
