import Foundation

/// A signing time as SigV4 writes it, in UTC: `20150830T123600Z` and its day `20150830`.
struct SigV4Timestamp: Sendable, Equatable {
    /// `yyyyMMdd'T'HHmmss'Z'`.
    let dateTime: String
    /// `yyyyMMdd`.
    let day: String

    init(_ date: Date) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        day = String(format: "%04d%02d%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
        dateTime = day + String(format: "T%02d%02d%02dZ", Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
