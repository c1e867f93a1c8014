import Foundation

/// When and how often a failed download is tried again, and how long it waits in between.
///
/// A download is retried when all of these hold:
/// - every request it sent was a `GET` (a request modifier that makes a `POST` turns
///   retries off for that download);
/// - none of its body has reached a caller yet: once a progress report with bytes (or a
///   progressive preview made from them) went out, a failure is final, unless the retry
///   resumes the body from the bytes held (``ResumePolicy``). A body partly read and not
///   yet handed on may be fetched again;
/// - it failed in a way another try may mend: a status in ``retryableStatusCodes`` that is
///   not one of ``DownloaderConfig/acceptableStatusCodes``, or, with
///   ``retriesTransportFailures``, a connection that could not be made (refused,
///   unreachable, timed out), a read that timed out (``DownloaderConfig/idleTimeout``), or
///   a connection reset or closed before the whole body arrived;
/// - fewer than ``maxRetries`` retries were made, and the wait ends before the download's
///   ``DownloaderConfig/totalTimeout``, which counts every attempt and every wait.
///
/// Anything else fails at once: a 404 or another status not listed, a host name that does
/// not resolve (the resolver has retried already), a TLS failure, a proxy's refusal, a body
/// too large, the whole-transfer deadline, a cancelled load.
///
/// The wait before retry *n* (from 1) is ``baseDelay`` × ``multiplier``^(*n* − 1), at most
/// ``maxDelay``, less a random share of up to ``jitter`` of it, so that clients that failed
/// together do not come back together. A response with `Retry-After` (seconds, or an HTTP
/// date, measured from the response's `Date` when it has one) is retried after exactly
/// that wait instead; one asking for longer than ``maxRetryAfter`` fails at once with its
/// status, without waiting. The wait holds the download's slot in the queue and ends at
/// once when the load is cancelled.
///
/// Each retry is reported as ``ImageEvent/retrying(url:retry:delay:reason:)``. Set one on
/// ``DownloaderConfig/retryPolicy`` for every download, or on
/// ``DownloadOptions/retryPolicy`` or ``ImageRequest/retryPolicy`` for one;
/// ``RetryPolicy/never`` turns retries off.
///
///     var config = DownloaderConfig()
///     config.retryPolicy = RetryPolicy(maxRetries: 4, baseDelay: .milliseconds(500))
public struct RetryPolicy: Sendable, Hashable {
    /// The most retries after the first attempt (so at most `maxRetries + 1` requests);
    /// 0 never retries. Default 2.
    public var maxRetries: Int
    /// The wait before the first retry, before jitter. Default 0.2 s.
    public var baseDelay: Duration
    /// What each wait is multiplied by for the next retry. Default 2.
    public var multiplier: Double
    /// The longest wait between two attempts, before jitter (a `Retry-After` is bounded by
    /// ``maxRetryAfter`` instead). Default 5 s.
    public var maxDelay: Duration
    /// The share of each wait (0 to 1) that may be taken off at random: 0.5 waits between
    /// half the delay and the whole of it; 0 waits the delay exactly. Default 0.5.
    public var jitter: Double
    /// The longest wait a response's `Retry-After` may ask for; a longer one fails the
    /// download at once with the response's status. Default 10 s.
    public var maxRetryAfter: Duration
    /// The statuses retried: by default 408 Request Timeout, 429 Too Many Requests, 500
    /// Internal Server Error, 502 Bad Gateway, 503 Service Unavailable and 504 Gateway Timeout.
    public var retryableStatusCodes: Set<Int>
    /// Whether connections that could not be made, reads that timed out and connections
    /// reset or closed early are retried. Default on.
    public var retriesTransportFailures: Bool

    /// 408, 429, 500, 502, 503 and 504: the statuses that say another try may succeed.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// Two retries, after about 0.2 s and 0.4 s, of transient failures and of the statuses
    /// in ``defaultRetryableStatusCodes``; a `Retry-After` of up to 10 s is waited for.
    public static let `default` = RetryPolicy()

    /// No retries: the first failure is the download's. (Named so that it cannot be read
    /// as `Optional.none` where a policy is optional, as ``ImageRequest/retryPolicy`` is.)
    public static let never = RetryPolicy(maxRetries: 0)

    /// Creates a policy; every argument defaults to the value of ``default``.
    public init(
        maxRetries: Int = 2,
        baseDelay: Duration = .milliseconds(200),
        multiplier: Double = 2,
        maxDelay: Duration = .seconds(5),
        jitter: Double = 0.5,
        maxRetryAfter: Duration = .seconds(10),
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        retriesTransportFailures: Bool = true
    ) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.maxRetryAfter = maxRetryAfter
        self.retryableStatusCodes = retryableStatusCodes
        self.retriesTransportFailures = retriesTransportFailures
    }

    /// The wait before retry `retry` (from 1) of a failure without `Retry-After`:
    /// ``baseDelay`` × ``multiplier``^(`retry` − 1), at most ``maxDelay``, less
    /// `random` × ``jitter`` of it.
    /// - Parameter random: a number in `0..<1` (drawn at random, or fixed by a test).
    public func delay(beforeRetry retry: Int, random: Double = Double.random(in: 0..<1)) -> Duration {
        let base = max(0, baseDelay / .seconds(1))
        let cap = max(0, maxDelay / .seconds(1))
        let grown = base * pow(max(0, multiplier), Double(max(0, retry - 1)))
        let delay = min(cap, grown.isFinite ? grown : cap)
        let share = min(1, max(0, jitter)) * min(1, max(0, random))
        // Whole nanoseconds: a wait computed in floating point comes out as written.
        return .nanoseconds(Int64(min((delay * (1 - share) * 1e9).rounded(), 9e18)))
    }
}
