import Foundation

/// The range a `206` says it carries: `Content-Range: bytes <first>-<last>/<length>`,
/// the length `nil` when the source wrote `*`.
struct ContentRange: Equatable {
    var first: Int
    var last: Int
    var length: Int?

    /// The range of a `Content-Range` value, or `nil` when it is not a single byte range.
    init?(_ value: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.count > 6, text.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = text.dropFirst(6).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let bounds = spec[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first else { return nil }
        self.first = first
        self.last = last
        if spec[1] == "*" {
            length = nil
        } else {
            guard let length = Int(spec[1]), length > last else { return nil }
            self.length = length
        }
    }
}
