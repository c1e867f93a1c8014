#if canImport(Glibc)
import Glibc
#endif

/// Wall and CPU time of one timed side of an A/B pair, in seconds.
public struct TimeSample: Sendable {
    public var wall: Double
    public var cpu: Double

    public init(wall: Double, cpu: Double) {
        self.wall = wall
        self.cpu = cpu
    }

    /// This sample's time over `other`'s, wall and CPU, scaled by 1000 (for an `Int` metric).
    public func permille(over other: TimeSample) -> (wall: Int, cpu: Int) {
        (Int((wall / other.wall * 1000).rounded()), Int((cpu / max(other.cpu, 1e-9) * 1000).rounded()))
    }
}

/// Nanosecond-resolution clocks (package-benchmark's CPU metric moves in 10 ms steps).
public enum Clocks {
    public static func seconds(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Times `body` on the calling thread: wall clock and this thread's CPU time (user + system).
    public static func measureThread(_ body: () throws -> Void) rethrows -> TimeSample {
        let wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_THREAD_CPUTIME_ID)
        try body()
        return TimeSample(wall: seconds(CLOCK_MONOTONIC) - wall0, cpu: seconds(CLOCK_THREAD_CPUTIME_ID) - cpu0)
    }

    /// Times synchronous `body` that may hand its work to other threads (libvips computes
    /// pixels on its worker threads): wall clock and the whole process's CPU time.
    public static func measureBlocking(_ body: () throws -> Void) rethrows -> TimeSample {
        let wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID)
        try body()
        return TimeSample(wall: seconds(CLOCK_MONOTONIC) - wall0, cpu: seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0)
    }

    /// Times async `body`: wall clock and the whole process's CPU time (every thread:
    /// event loops, the cooperative pool, the in-process HTTP server).
    public static func measureProcess(_ body: () async throws -> Void) async rethrows -> TimeSample {
        let wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID)
        try await body()
        return TimeSample(wall: seconds(CLOCK_MONOTONIC) - wall0, cpu: seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0)
    }
}
