/// How fast downloads may start, on top of how many may run at once: a token bucket
/// that holds up to ``burst`` starts and refills at ``startsPerSecond`` (Nuke's
/// `RateLimiter` has the same shape, at 80 a second with a burst of 25).
///
/// A list that scrolls past a thousand images, or a prefetcher handed a whole feed, then
/// opens connections at a steady pace instead of all at once; downloads wait in the
/// queue, by priority, for their turn as for a free slot.
///
///     var config = DownloaderConfig()
///     config.rateLimit = DownloadRateLimit(startsPerSecond: 20, burst: 10)
public struct DownloadRateLimit: Sendable {
    /// Starts allowed each second, once the burst is spent (more than zero).
    public var startsPerSecond: Double
    /// Starts allowed at once after a quiet time (at least 1).
    public var burst: Int
    /// The clock the bucket refills on and the queue waits on. Default `ContinuousClock()`;
    /// a test gives a clock it moves itself.
    public var clock: any Clock<Duration>

    /// A limit of `startsPerSecond` starts a second, `burst` at once.
    public init(startsPerSecond: Double, burst: Int, clock: any Clock<Duration> = ContinuousClock()) {
        self.startsPerSecond = startsPerSecond
        self.burst = burst
        self.clock = clock
    }
}
