import Foundation

/// The ISO 8601 times AWS answers expirations in, with or without fractional seconds.
enum AWSTimestamp {
    static func date(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return try? Date(trimmed, strategy: fractional)
    }
}
