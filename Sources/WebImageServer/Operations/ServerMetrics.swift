import CoreMetrics
import Foundation
import Prometheus
import WebImageLocking

/// The proxy's metrics (swift-metrics API), in a Prometheus registry of the server's own,
/// served at `/metrics` in the Prometheus text format (SPEC S9).
///
/// - `webimage_requests_total{status}`: responses by status code.
/// - `webimage_request_errors_total{status}`: responses with status 400 and above.
/// - `webimage_request_duration_seconds`: latency histogram.
/// - `webimage_in_flight_requests`, `webimage_queue_depth`: gauges.
/// - `webimage_cache_hits_total{type}`: variant hits from `memory` or `disk`, and
///   `original` (a miss whose source came from the disk cache); `webimage_cache_misses_total`.
/// - `webimage_source_bytes_total`: bytes of sources downloaded.
/// - `webimage_processed_total`: variants made (decode, transform, encode).
/// - `webimage_cache_write_errors_total{cache}`: failed disk-cache writes, by cache
///   (`variants`, `originals`): a full disk, a read-only or unwritable directory.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let statusCounters = InlineLocked<[Int: (CoreMetrics.Counter, CoreMetrics.Counter?)]>([:])
    private let hitCounters = InlineLocked<[String: CoreMetrics.Counter]>([:])
    private let writeErrorCounters = InlineLocked<[String: CoreMetrics.Counter]>([:])
    private let duration: CoreMetrics.Timer
    private let inFlight: Meter
    private let queueDepth: Meter
    private let misses: CoreMetrics.Counter
    private let sourceBytes: CoreMetrics.Counter
    private let processed: CoreMetrics.Counter

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
            .seconds(5), .seconds(10), .seconds(30),
        ]
        self.factory = factory
        duration = CoreMetrics.Timer(label: "webimage_request_duration_seconds", factory: factory)
        inFlight = Meter(label: "webimage_in_flight_requests", factory: factory)
        queueDepth = Meter(label: "webimage_queue_depth", factory: factory)
        misses = CoreMetrics.Counter(label: "webimage_cache_misses_total", factory: factory)
        sourceBytes = CoreMetrics.Counter(label: "webimage_source_bytes_total", factory: factory)
        processed = CoreMetrics.Counter(label: "webimage_processed_total", factory: factory)
        inFlight.set(0)
        queueDepth.set(0)
    }

    /// Records a finished request.
    func requestFinished(status: Int, duration elapsed: Duration) {
        let (requests, errors) = statusCounters.withLock { counters in
            if let existing = counters[status] { return existing }
            let labels = [("status", String(status))]
            let made = (
                CoreMetrics.Counter(label: "webimage_requests_total", dimensions: labels, factory: factory),
                status >= 400 ? CoreMetrics.Counter(label: "webimage_request_errors_total", dimensions: labels, factory: factory) : nil
            )
            counters[status] = made
            return made
        }
        requests.increment()
        errors?.increment()
        let (seconds, attoseconds) = elapsed.components
        duration.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    func requestStarted() { inFlight.increment() }
    func requestEnded() { inFlight.decrement() }
    func setQueueDepth(_ depth: Int) { queueDepth.set(depth) }

    /// A cache hit of `type` (`memory`, `disk`, `original`).
    func cacheHit(_ type: String) {
        let counter = hitCounters.withLock { counters in
            if let existing = counters[type] { return existing }
            let made = CoreMetrics.Counter(label: "webimage_cache_hits_total", dimensions: [("type", type)], factory: factory)
            counters[type] = made
            return made
        }
        counter.increment()
    }

    /// A failed write to the disk cache called `cache`.
    func cacheWriteFailed(cache: String) { cacheWriteErrors(cache).increment() }

    /// The write-error counter of the disk cache called `cache`, made (at 0) on first use.
    @discardableResult
    func cacheWriteErrors(_ cache: String) -> CoreMetrics.Counter {
        writeErrorCounters.withLock { counters in
            if let existing = counters[cache] { return existing }
            let made = CoreMetrics.Counter(label: "webimage_cache_write_errors_total", dimensions: [("cache", cache)], factory: factory)
            counters[cache] = made
            return made
        }
    }

    func cacheMiss() { misses.increment() }
    func sourceDownloaded(bytes: Int) { sourceBytes.increment(by: bytes) }
    func variantProcessed() { processed.increment() }

    /// Every metric in the Prometheus text format.
    func render() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
