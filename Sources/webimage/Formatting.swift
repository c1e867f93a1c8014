import Foundation
import WebImage

/// How values read in the tool's human output.
enum Formatting {
    /// Bytes in decimal units: `830 B`, `12.4 kB`, `3.1 MB`, `1.20 GB`.
    static func bytes(_ count: Int) -> String {
        let value = Double(count)
        switch count {
        case ..<1_000: return "\(count) B"
        case ..<1_000_000: return String(format: "%.1f kB", value / 1e3)
        case ..<1_000_000_000: return String(format: "%.1f MB", value / 1e6)
        default: return String(format: "%.2f GB", value / 1e9)
        }
    }

    /// Milliseconds from a duration, as a whole number.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// Where an image came from, in words: `downloaded`, `memory` or `disk`.
    static func source(_ cacheType: CacheType) -> String {
        cacheType == .none ? "downloaded" : cacheType.description
    }

    /// A duration in seconds as `45s`, `12m`, `3h`, `7d`.
    static func age(_ seconds: TimeInterval) -> String {
        let seconds = Int(seconds.rounded())
        if seconds < 120 { return "\(seconds)s" }
        if seconds < 2 * 3600 { return "\(seconds / 60)m" }
        if seconds < 2 * 86400 { return "\(seconds / 3600)h" }
        return "\(seconds / 86400)d"
    }

    /// An ISO 8601 date in UTC, e.g. `2026-11-22T21:40:00Z`.
    static func date(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

/// One JSON object a line (JSON Lines): what `--json` prints.
enum JSONLines {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// Encodes `value` on one line.
    static func line(_ value: some Encodable) -> String {
        // Only the tool's own plain structs are encoded: encoding cannot fail.
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
