import Foundation
import Testing
@testable import WebImage

@Suite("HTTP dates")
struct HTTPDateTests {
    @Test("IMF-fixdate as RFC 9110 writes it, with two-digit fields")
    func format() {
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: 1_798_761_599)) == "Thu, 31 Dec 2026 23:59:59 GMT")
    }

    @Test("fractions of a second are dropped, never rounded up past the Date header")
    func fractionsDropped() {
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: 784_111_777.999)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("agrees with Foundation's formatter over many dates")
    func agreesWithFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let date = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0...4_102_444_800, using: &generator)))
            #expect(HTTPDate.string(from: date) == formatter.string(from: date))
        }
    }

    @Test("IMF-fixdates parse back to their time; other forms are not read")
    func parses() {
        #expect(HTTPDate.date(from: "Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        #expect(HTTPDate.date(from: HTTPDate.string(from: now)) == now)
        for text in ["Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC", "", "Sun, 06 Foo 1994 08:49:37 GMT"] {
            #expect(HTTPDate.date(from: text) == nil, "\(text)")
        }
    }
}
