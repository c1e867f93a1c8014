import Logging
import WebImage
import WebImageLocking

/// Reports failed disk-cache writes (a full disk, a read-only or removed directory): every
/// failure counts in `webimage_cache_write_errors_total{cache}`, and a warning is logged at
/// most once per ``interval``, naming the cache, the reason and how many more failed since
/// the last warning. Serving goes on without the cache meanwhile.
final class CacheWriteWarnings: Sendable {
    private struct State {
        var lastWarning: ContinuousClock.Instant?
        var unreported = 0
    }

    /// The shortest time between two warnings.
    let interval: Duration
    private let logger: Logger
    private let metrics: ServerMetrics
    private let state = InlineLocked(State())

    init(interval: Duration = .seconds(60), logger: Logger, metrics: ServerMetrics) {
        self.interval = interval
        self.logger = logger
        self.metrics = metrics
    }

    /// Watches `cache`'s disk writes, reporting them as the cache called `name`.
    func watch(_ cache: DiskCache, name: String) {
        metrics.cacheWriteErrors(name)  // listed at 0 from the start
        cache.observeWriteFailures { [self] failure in record(failure, cache: name) }
    }

    /// Counts `failure` and logs a warning when the last one is at least ``interval`` old.
    func record(_ failure: CacheWriteFailure, cache name: String) {
        metrics.cacheWriteFailed(cache: name)
        let now = ContinuousClock.now
        let earlier: Int? = state.withLock { state in
            if let last = state.lastWarning, now - last < interval {
                state.unreported += 1
                return nil
            }
            defer {
                state.lastWarning = now
                state.unreported = 0
            }
            return state.unreported
        }
        guard let earlier else { return }
        let more = earlier > 0 ? " (\(earlier) more failed since the last warning)" : ""
        logger.warning(
            "disk cache writes are failing\(more): \(failure.error); images are still served but not cached until writes succeed again",
            metadata: ["cache": .string(name), "directory": .string(failure.directory)]
        )
    }
}
