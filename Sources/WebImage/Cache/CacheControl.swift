/// An HTTP `Cache-Control` header, read once into its directives: what cached entries
/// follow of it.
struct CacheControl {
    /// The directives, lowercased, each without the whitespace around it.
    let directives: [Substring]

    /// The directives of `header` (several headers joined with commas).
    init(_ header: String) {
        directives = header.lowercased().split(separator: ",").map { $0.trimmingPrefix(while: \.isWhitespace).trimmingSuffix(while: \.isWhitespace) }
    }

    /// The seconds of the directive `name=<seconds>` (the last when repeated); `nil` when
    /// it is absent or not a number of seconds. A negative number counts as 0.
    func seconds(of name: String) -> Double? {
        var found: Double?
        for directive in directives {
            guard directive.hasPrefix(name), directive.dropFirst(name.count).first == "=" else { continue }
            var value = directive.dropFirst(name.count + 1)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            if let seconds = Double(value), seconds.isFinite { found = max(0, seconds) }
        }
        return found
    }

    /// Whether the directive `name` is there on its own or with arguments (`no-cache`,
    /// `no-cache="set-cookie"`).
    func contains(_ name: String) -> Bool {
        directives.contains { $0 == name || ($0.hasPrefix(name) && $0.dropFirst(name.count).first == "=") }
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
