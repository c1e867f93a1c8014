import Foundation
import NIOHTTP1
import Testing
@testable import WebImage

/// ``RetryPolicy``'s waits and `Retry-After`'s two forms, as values.
@Suite("Retry policy")
struct RetryPolicyTests {
    @Test("HT2 the wait doubles from the base delay up to the maximum; jitter takes off up to its share")
    func HT2_backoff() {
        let policy = RetryPolicy(baseDelay: .milliseconds(200), multiplier: 2, maxDelay: .seconds(1), jitter: 0.5)
        #expect(policy.delay(beforeRetry: 1, random: 0) == .milliseconds(200))
        #expect(policy.delay(beforeRetry: 2, random: 0) == .milliseconds(400))
        #expect(policy.delay(beforeRetry: 3, random: 0) == .milliseconds(800))
        #expect(policy.delay(beforeRetry: 4, random: 0) == .seconds(1))
        #expect(policy.delay(beforeRetry: 10_000, random: 0) == .seconds(1))
        #expect(policy.delay(beforeRetry: 2, random: 0.5) == .milliseconds(300))
        for _ in 0..<100 {
            let drawn = policy.delay(beforeRetry: 2)
            #expect(drawn > .milliseconds(200) && drawn <= .milliseconds(400))
        }
        #expect(RetryPolicy(jitter: 0).delay(beforeRetry: 1, random: 0.9) == .milliseconds(200))
    }

    @Test("HT2 the default retries twice the statuses that say another try may succeed; never does not retry")
    func HT2_defaults() {
        #expect(RetryPolicy.default.maxRetries == 2)
        #expect(RetryPolicy.default.retryableStatusCodes == [408, 429, 500, 502, 503, 504])
        #expect(RetryPolicy.default.retriesTransportFailures)
        #expect(RetryPolicy.never.maxRetries == 0)
        #expect(DownloaderConfig().retryPolicy == .default)
        #expect(Set([RetryPolicy.default, .never, RetryPolicy()]).count == 2)
    }

    @Test("HT2 Retry-After in seconds, as a date from the response's Date or from now, and what is not one")
    func HT2_retryAfterForms() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryAfter.delay(in: ["Retry-After": "120"], now: now) == .seconds(120))
        #expect(RetryAfter.delay(in: ["Retry-After": " 0 "], now: now) == .zero)
        #expect(RetryAfter.delay(in: ["Retry-After": "99999999999999999999999"], now: now)! > .seconds(1_000_000))
        let date = HTTPDate.string(from: now + 30)
        #expect(RetryAfter.delay(in: ["Retry-After": date], now: now) == .seconds(30))
        #expect(RetryAfter.delay(in: ["Retry-After": date, "Date": HTTPDate.string(from: now + 20)], now: now) == .seconds(10))
        #expect(RetryAfter.delay(in: ["Retry-After": HTTPDate.string(from: now - 30)], now: now) == .zero)
        #expect(RetryAfter.delay(in: ["Retry-After": "-5"], now: now) == nil)
        #expect(RetryAfter.delay(in: ["Retry-After": "soon"], now: now) == nil)
        #expect(RetryAfter.delay(in: [:], now: now) == nil)
    }
}
