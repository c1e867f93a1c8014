/// How a decoded source URL is rewritten before it is checked and fetched, as imgproxy's
/// `IMGPROXY_URL_REPLACEMENTS` and `IMGPROXY_BASE_URL` rewrite it: the replacements in
/// order, then the base URL put in front of a URL that does not already start with it.
/// The signature covers the URL as written; the allowed sources and the address checks
/// see the rewritten one.
public struct SourceURLRewrite: Sendable, Hashable {
    /// One replacement: a URL starting with ``pattern`` has that start replaced.
    public struct Replacement: Sendable, Hashable {
        /// A prefix in which `*` stands for any run of characters other than `/`.
        public var pattern: String
        /// What the matched prefix becomes; `$1` or `${1}` is what the first `*` matched,
        /// `$$` a dollar sign.
        public var replacement: String

        /// A replacement of URLs starting with `pattern`.
        public init(pattern: String, replacement: String) {
            self.pattern = pattern
            self.replacement = replacement
        }

        /// `url` with its matching start replaced; `nil` when it does not start with the pattern.
        func apply(to url: String) -> String? {
            let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map { Array($0.utf8) }
            let bytes = Array(url.utf8)
            guard let (end, captures) = Self.match(parts, in: bytes, at: 0) else { return nil }
            return expand(captures: captures.map { String(decoding: bytes[$0], as: UTF8.self) }) + String(decoding: bytes[end...], as: UTF8.self)
        }

        /// Matches `parts` (literals between wildcards) from `start`: where the match ends and
        /// the ranges the wildcards took. A wildcard takes as many characters other than `/`
        /// as it can while the rest still matches, as a greedy `([^/]*)` does.
        private static func match(_ parts: [[UInt8]], in bytes: [UInt8], at start: Int) -> (Int, [Range<Int>])? {
            let literal = parts[0]
            guard bytes.count - start >= literal.count, bytes[start..<start + literal.count].elementsEqual(literal) else { return nil }
            let afterLiteral = start + literal.count
            guard parts.count > 1 else { return (afterLiteral, []) }
            var runEnd = afterLiteral
            while runEnd < bytes.count, bytes[runEnd] != UInt8(ascii: "/") { runEnd += 1 }
            for end in stride(from: runEnd, through: afterLiteral, by: -1) {
                if let (matchEnd, captures) = match(Array(parts.dropFirst()), in: bytes, at: end) {
                    return (matchEnd, [afterLiteral..<end] + captures)
                }
            }
            return nil
        }

        /// The replacement with `$n`, `${n}` and `$$` expanded, as Go's `Regexp.Expand` does
        /// for numbered groups; a name that is not a group number expands to nothing.
        private func expand(captures: [String]) -> String {
            var result = ""
            var index = replacement.startIndex
            while index < replacement.endIndex {
                let character = replacement[index]
                index = replacement.index(after: index)
                guard character == "$", index < replacement.endIndex else {
                    result.append(character)
                    continue
                }
                var name: Substring
                if replacement[index] == "$" {
                    result.append("$")
                    index = replacement.index(after: index)
                    continue
                } else if replacement[index] == "{", let close = replacement[index...].firstIndex(of: "}") {
                    name = replacement[replacement.index(after: index)..<close]
                    index = replacement.index(after: close)
                } else {
                    let end = replacement[index...].firstIndex { !($0.isLetter || $0.isNumber || $0 == "_") } ?? replacement.endIndex
                    guard end > index else {
                        result.append("$")
                        continue
                    }
                    name = replacement[index..<end]
                    index = end
                }
                if let number = Int(name), number >= 1, number <= captures.count { result += captures[number - 1] }
            }
            return result
        }
    }

    /// The replacements, applied in order, each to the result of the one before.
    public var replacements: [Replacement]
    /// Put in front of a source URL that does not start with it; `nil`: none.
    public var baseURL: String?

    /// A rewrite with `replacements` and `baseURL`.
    public init(replacements: [Replacement] = [], baseURL: String? = nil) {
        self.replacements = replacements
        self.baseURL = baseURL
    }

    /// Whether the rewrite leaves every URL as it is.
    public var isEmpty: Bool { replacements.isEmpty && (baseURL ?? "").isEmpty }

    /// `url` rewritten.
    public func apply(to url: String) -> String {
        var url = url
        for replacement in replacements {
            if let replaced = replacement.apply(to: url) { url = replaced }
        }
        if let baseURL, !baseURL.isEmpty, !url.hasPrefix(baseURL) { url = baseURL + url }
        return url
    }

    /// imgproxy's `IMGPROXY_URL_REPLACEMENTS` form: `pattern=replacement` pairs separated by `;`.
    public static func replacements(from text: String) throws(ServerConfigError) -> [Replacement] {
        var list: [Replacement] = []
        for pair in text.split(separator: ";", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "=") else {
                throw ServerConfigError("URL replacement '\(pair)' is not pattern=replacement, e.g. s3://old/*/=https://new.example.com/$1/ (\(ServerSetting.urlReplacements.names))")
            }
            list.append(Replacement(pattern: String(pair[..<equals]), replacement: String(pair[pair.index(after: equals)...])))
        }
        return list
    }
}
