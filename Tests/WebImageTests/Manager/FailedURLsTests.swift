import Foundation
import Testing
@testable import WebImage
import WebImageLocking

@Suite("Failed URLs")
struct FailedURLsTests {
    final class FakeClock: Sendable {
        let now = Locked(ContinuousClock.now)
        func advance(_ duration: Duration) { now.withLock { $0 += duration } }
        func read() -> ContinuousClock.Instant { now.withLock { $0 } }
    }

    let url = URL(string: "http://example.test/a.png")!

    @Test("M4 permanent failures block; transient ones never do")
    func M4_permanentVersusTransient() {
        let failed = FailedURLs()
        for error in [ImageError.timedOut("t"), .network("reset"), .cancelled, .invalidStatusCode(503),
                      .invalidStatusCode(429), .invalidStatusCode(408), .network("DNS")] {
            #expect(!failed.record(url, error: error), "\(error) must not block")
            #expect(!failed.isBlocked(url))
        }
        for error in [ImageError.badImageData("x"), .invalidStatusCode(404), .invalidStatusCode(410),
                      .imageTooLarge(pixels: 2, limit: 1), .invalidContentType("text/html")] {
            failed.removeAll()
            #expect(failed.record(url, error: error), "\(error) blocks")
            #expect(failed.isBlocked(url))
        }
    }

    @Test("M4 a blocked URL expires after its TTL")
    func M4_entriesExpire() {
        let clock = FakeClock()
        let failed = FailedURLs(ttl: .seconds(60), capacity: 10, clock: { clock.read() })
        failed.record(url, error: .badImageData("x"))
        clock.advance(.seconds(59))
        #expect(failed.isBlocked(url))
        clock.advance(.seconds(1))
        #expect(!failed.isBlocked(url))
        #expect(failed.count == 0)
    }

    @Test("the set is bounded and drops the oldest failure first")
    func boundedOldestFirst() {
        let failed = FailedURLs(ttl: .seconds(600), capacity: 3)
        let urls = (0..<5).map { URL(string: "http://example.test/\($0).png")! }
        for url in urls { failed.record(url, error: .invalidStatusCode(404)) }
        #expect(failed.count == 3)
        #expect(!failed.isBlocked(urls[0]))
        #expect(!failed.isBlocked(urls[1]))
        #expect(failed.isBlocked(urls[4]))
        failed.remove(urls[4])
        #expect(!failed.isBlocked(urls[4]))
    }
}
