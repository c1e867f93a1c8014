/// One allowed-source entry: a prefix of the source URL in which each `*` stands for any
/// run of characters other than `/` (imgproxy's `IMGPROXY_ALLOWED_SOURCES` patterns), e.g.
/// `https://*.example.com/` or `https://cdn.example.com/users/*/avatars/`.
///
/// Scheme and host compare case-insensitively (see ``SourceGuard/normalized(_:)``); the
/// rest compares byte for byte.
struct SourcePattern: Sendable, Hashable {
    /// The normalised pattern as written.
    let text: String
    /// The literal pieces between the `*`s.
    private let pieces: [[UInt8]]

    init(_ pattern: String) {
        text = SourceGuard.normalized(pattern)
        pieces = text.utf8.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false).map(Array.init)
    }

    /// Whether `source` (already normalised) starts with text this pattern describes.
    func matches(_ source: String) -> Bool {
        let bytes = Array(source.utf8)
        guard bytes.starts(with: pieces[0]) else { return false }
        return matchRest(bytes, from: pieces[0].count, piece: 1)
    }

    /// Matches `pieces[piece...]` at `position`, each preceded by a `*`.
    private func matchRest(_ bytes: [UInt8], from position: Int, piece: Int) -> Bool {
        guard piece < pieces.count else { return true }
        let literal = pieces[piece]
        var start = position
        // The `*` before this piece takes bytes[position..<start], none of them a '/'.
        while start <= bytes.count {
            if bytes[start...].starts(with: literal), matchRest(bytes, from: start + literal.count, piece: piece + 1) {
                return true
            }
            guard start < bytes.count, bytes[start] != UInt8(ascii: "/") else { return false }
            start += 1
        }
        return false
    }
}
