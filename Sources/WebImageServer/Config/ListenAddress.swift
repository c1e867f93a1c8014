/// An address to listen on, written `host:port`, `[ipv6]:port`, or `:port` for every
/// address (as Go's listeners and imgproxy's bind settings write it).
struct ListenAddress: Sendable, Equatable {
    /// The host or address; `0.0.0.0` for `:port`.
    let host: String
    /// The TCP port, 1–65535.
    let port: Int

    /// Parses `text`; `nil` when it is not `host:port` with a port from 1 to 65535.
    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        self.host = host.isEmpty ? "0.0.0.0" : host
        self.port = port
    }
}
