/// The directives of an HTTP `Cache-Control` header that cached entries follow.
enum CacheControl {
    /// The directives of `header` (several headers joined with commas), lowercased, each
    /// without the whitespace around it.
    static func directives(of header: String) -> [Substring] {
        header.lowercased().split(separator: ",").map { $0.trimmingPrefix(while: \.isWhitespace).trimmingSuffix(while: \.isWhitespace) }
    }

    /// The seconds of the directive `name=<seconds>` in `header` (the last when repeated);
    /// `nil` when it is absent or not a number of seconds. A negative number counts as 0.
    static func seconds(of name: String, in header: String) -> Double? {
        var found: Double?
        for directive in directives(of: header) {
            guard directive.hasPrefix(name), directive.dropFirst(name.count).first == "=" else { continue }
            var value = directive.dropFirst(name.count + 1)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            if let seconds = Double(value), seconds.isFinite { found = max(0, seconds) }
        }
        return found
    }

    /// Whether `header` has the directive `name` on its own or with arguments
    /// (`no-cache`, `no-cache="set-cookie"`).
    static func contains(_ name: String, in header: String) -> Bool {
        directives(of: header).contains { $0 == name || ($0.hasPrefix(name) && $0.dropFirst(name.count).first == "=") }
    }
}

extension Substring {
    /// The substring without the trailing characters that satisfy `predicate`.
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
