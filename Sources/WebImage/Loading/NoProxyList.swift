import Foundation

/// The hosts a ``DownloaderProxy`` does not apply to, written as curl reads `NO_PROXY`.
///
/// Entries are separated by commas or spaces:
/// - `*` alone: every host goes direct.
/// - A host name: that name and every name under it (`example.com` matches `example.com`
///   and `img.example.com`, not `notexample.com`); a leading or trailing `.` is ignored, and
///   case does not matter.
/// - An IP address: that address (IPv6 with or without brackets); `10.0.0.0/8` or `fd00::/8`:
///   every address in that network. Only URLs whose host is an address literal match these:
///   names are never resolved to decide.
/// - Any of the above with `:port` (`example.com:8080`): only URLs to that port. Without a
///   port an entry matches every port.
public struct NoProxyList: Sendable, Hashable {
    /// One parsed entry.
    private enum Entry: Hashable {
        case everything
        case domain(String, port: Int?)
        case network(bytes: [UInt8], prefixLength: Int, port: Int?)
    }

    private let entries: [Entry]

    /// The list as written, e.g. `localhost,127.0.0.1,.internal.example,10.0.0.0/8`.
    public let text: String

    /// Parses `text`; entries that cannot be read (an empty one, a bad network) are skipped.
    public init(_ text: String) {
        self.text = text
        entries = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).compactMap { Self.entry(String($0)) }
    }

    /// An empty list: the proxy applies to every host.
    public static let none = NoProxyList("")

    /// Whether a request to `host` on `port` goes direct. `host` is the URL's host (IPv6 in
    /// brackets or not).
    public func matches(host: String, port: Int) -> Bool {
        guard !entries.isEmpty else { return false }
        let name = Self.normalized(host)
        let address = Self.addressBytes(name)
        for entry in entries {
            switch entry {
            case .everything:
                return true
            case .domain(let domain, let entryPort):
                guard entryPort == nil || entryPort == port else { continue }
                if name == domain || name.hasSuffix("." + domain) { return true }
            case .network(let bytes, let prefixLength, let entryPort):
                guard entryPort == nil || entryPort == port, let address, address.count == bytes.count else { continue }
                if Self.sharePrefix(address, bytes, bits: prefixLength) { return true }
            }
        }
        return false
    }

    /// Whether a request to `url` goes direct (the port being the scheme's default when the URL has none).
    public func matches(_ url: URL) -> Bool {
        guard let host = url.host else { return false }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return matches(host: host, port: port)
    }

    // MARK: Parsing

    private static func entry(_ raw: String) -> Entry? {
        var token = raw.trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { return nil }
        if token == "*" { return .everything }
        var port: Int?
        if token.hasPrefix("[") {
            // [v6]:port or [v6]
            guard let close = token.firstIndex(of: "]") else { return nil }
            let after = token[token.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()) else { return nil }
                port = value
            }
            token = String(token[token.index(after: token.startIndex)..<close])
        } else if token.filter({ $0 == ":" }).count == 1, let colon = token.firstIndex(of: ":") {
            // name:port or v4:port (an IPv6 address has several colons)
            guard let value = Int(token[token.index(after: colon)...]) else { return nil }
            port = value
            token = String(token[..<colon])
        }
        var prefixLength: Int?
        if let slash = token.firstIndex(of: "/") {
            guard let bits = Int(token[token.index(after: slash)...]), bits >= 0 else { return nil }
            prefixLength = bits
            token = String(token[..<slash])
        }
        token = normalized(token)
        if let bytes = addressBytes(token) {
            let length = min(prefixLength ?? bytes.count * 8, bytes.count * 8)
            return .network(bytes: bytes, prefixLength: length, port: port)
        }
        guard prefixLength == nil, !token.isEmpty else { return nil }
        return .domain(token, port: port)
    }

    /// Lower-cased, without brackets and without a leading or trailing dot.
    private static func normalized(_ host: String) -> String {
        var name = Substring(host.lowercased())
        if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        while name.hasPrefix(".") { name = name.dropFirst() }
        while name.hasSuffix(".") { name = name.dropLast() }
        return String(name)
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 literal, or `nil` for a name.
    private static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    private static func sharePrefix(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        var remaining = bits
        for index in a.indices where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a[index] & mask != b[index] & mask { return false }
            remaining -= 8
        }
        return true
    }
}
