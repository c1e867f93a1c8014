import Foundation
import NIOHTTP1

/// A response's `Retry-After` (RFC 9110, section 10.2.3): how long the server asks the
/// client to wait before it tries again.
enum RetryAfter {
    /// The wait `headers` ask for: `Retry-After` in seconds (`120`), or an HTTP date
    /// measured from the response's `Date` when it has a valid one, else from `now`. A date
    /// already past asks for no wait; `nil` when there is no `Retry-After` or it is neither form.
    static func delay(in headers: HTTPHeaders, now: Date) -> Duration? {
        guard let value = headers.first(name: "retry-after")?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
            return nil
        }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // More digits than an Int holds: a wait longer than any cap.
            return .seconds(Int(value) ?? Int.max)
        }
        guard let date = HTTPDate.date(from: value) else { return nil }
        let reference = headers.first(name: "date").flatMap(HTTPDate.date(from:)) ?? now
        return .seconds(max(0, date.timeIntervalSince(reference)))
    }
}
