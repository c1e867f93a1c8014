#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// HTTP dates (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), written by hand:
/// a `DateFormatter` per response cost more than the rest of a cache hit's headers.
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` as an IMF-fixdate. Fractions of a second are dropped (not rounded), so a
    /// `Last-Modified` is never later than the `Date` of the same moment.
    static func string(from date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(parts.tm_year) + 1900
        return "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
