/// The token bucket of a ``DownloadRateLimit``: starts taken against the time on its clock.
struct StartTokenBucket: Sendable {
    /// The time on the limit's clock since the bucket was made.
    let elapsed: @Sendable () -> Duration
    /// Sleeps on the limit's clock; returns early when the task is cancelled.
    let sleep: @Sendable (Duration) async -> Void
    private let perSecond: Double
    private let capacity: Double
    private var tokens: Double
    private var updated: Duration = .zero

    init(_ limit: DownloadRateLimit) {
        (elapsed, sleep) = Self.timing(limit.clock)
        perSecond = max(limit.startsPerSecond, .leastNonzeroMagnitude)
        capacity = Double(max(1, limit.burst))
        tokens = capacity
    }

    /// Reads and waits on `clock` through closures, so that the bucket's type does not
    /// depend on the clock's.
    private static func timing<C: Clock<Duration>>(_ clock: C) -> (@Sendable () -> Duration, @Sendable (Duration) async -> Void) {
        let origin = clock.now
        return ({ origin.duration(to: clock.now) }, { duration in try? await clock.sleep(for: duration) })
    }

    /// Whether a start may be taken at `now`, after refilling to it.
    mutating func hasToken(at now: Duration) -> Bool {
        let seconds = Double((now - updated).components.seconds) + Double((now - updated).components.attoseconds) * 1e-18
        if seconds > 0 {
            tokens = min(capacity, tokens + seconds * perSecond)
            updated = now
        }
        return tokens >= 1
    }

    /// Takes the start ``hasToken(at:)`` found.
    mutating func take() { tokens -= 1 }

    /// How long until the next start may be taken.
    var timeToNextToken: Duration {
        .nanoseconds(Int64(((1 - tokens) / perSecond * 1e9).rounded(.up)))
    }
}
