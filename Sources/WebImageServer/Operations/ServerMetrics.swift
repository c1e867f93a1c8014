import CoreMetrics
import Foundation
import Prometheus
import WebImage
import WebImageLocking

/// The proxy's metrics (swift-metrics API) in a Prometheus registry, served at `/metrics`
/// in the Prometheus text format, and sent by OTLP as well when the process exports
/// metrics (``ProxyTelemetry``).
///
/// - `webimage_cache_hits_total{type}`: variant hits from `memory` or `disk`, and
///   `original` (a miss whose source came from the disk cache); `webimage_cache_misses_total`.
/// - `webimage_queue_depth`: requests waiting for a worker.
/// - `webimage_memory_budget_bytes`, `webimage_memory_reserved_bytes`: the workers' memory
///   budget and what they have reserved of it; `webimage_memory_waiting`: workers waiting
///   for it.
/// - `webimage_source_bytes_total`: bytes of sources downloaded;
///   `webimage_source_retries_total`: source downloads tried again (`--download-retries`).
/// - `webimage_processed_total`: variants made (decode, transform, encode).
/// - `webimage_cache_write_errors_total{cache}`: failed disk-cache writes, by cache
///   (`variants`, `originals`): a full disk, a read-only or unwritable directory.
/// - `webimage_client_connections`: client connections open;
///   `webimage_client_connections_refused_total`: connections closed at once for want of
///   room at their address (`--max-clients-per-address`); `webimage_client_timeouts_total{kind}`:
///   connections closed by the read (`read_request`), write (`write_response`) or keep-alive
///   (`keep_alive`) timeout.
///
/// Requests by status, errors, latency and requests in flight are
/// ``RequestMetricsMiddleware``'s, recorded through the process's `MetricsSystem` into the same
/// registry under the names ``PrometheusNames`` gives them, when ``ProxyTelemetry`` set
/// it up.
final class ServerMetrics: Sendable {
    /// Where the metrics are kept.
    let registry: PrometheusCollectorRegistry
    private let factory: any MetricsFactory
    /// The hit counters by type (`memory`, `disk`, `original`), made once: a hit looks its counter up without a lock.
    private let hitCounters: [String: CoreMetrics.Counter]
    private let writeErrorCounters = InlineLocked<[String: CoreMetrics.Counter]>([:])
    private let queueDepth: Meter
    private let memoryBudget: Meter
    private let memoryReserved: Meter
    private let memoryWaiting: Meter
    private let misses: CoreMetrics.Counter
    private let sourceBytes: CoreMetrics.Counter
    private let sourceRetries: CoreMetrics.Counter
    private let processed: CoreMetrics.Counter
    private let clientConnections: Meter
    private let refusedClients: CoreMetrics.Counter
    private let clientTimeouts: [ClientTimeoutKind: CoreMetrics.Counter]

    /// The latency buckets of duration histograms: 1 ms to 30 s.
    static let durationBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
        .seconds(5), .seconds(10), .seconds(30),
    ]

    /// A factory recording into `registry`, with the proxy's names and buckets.
    static func prometheusFactory(_ registry: PrometheusCollectorRegistry) -> any MetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = durationBuckets
        factory.nameAndLabelSanitizer = PrometheusNames.prometheus
        return factory
    }

    /// Metrics kept in a registry of their own, served with `namespace` in place of
    /// `webimage` when given.
    convenience init(namespace: String? = nil) {
        let registry = PrometheusCollectorRegistry()
        self.init(registry: registry, factory: Self.prometheusFactory(registry), namespace: namespace)
    }

    /// Metrics recorded through `factory`, which records into `registry` (and possibly
    /// elsewhere), served with `namespace` in place of `webimage` when given.
    init(registry: PrometheusCollectorRegistry, factory: any MetricsFactory, namespace: String? = nil) {
        self.registry = registry
        self.factory = factory
        self.namespace = namespace
        queueDepth = Meter(label: "webimage_queue_depth", factory: factory)
        memoryBudget = Meter(label: "webimage_memory_budget_bytes", factory: factory)
        memoryReserved = Meter(label: "webimage_memory_reserved_bytes", factory: factory)
        memoryWaiting = Meter(label: "webimage_memory_waiting", factory: factory)
        misses = CoreMetrics.Counter(label: "webimage_cache_misses_total", factory: factory)
        sourceBytes = CoreMetrics.Counter(label: "webimage_source_bytes_total", factory: factory)
        sourceRetries = CoreMetrics.Counter(label: "webimage_source_retries_total", factory: factory)
        processed = CoreMetrics.Counter(label: "webimage_processed_total", factory: factory)
        clientConnections = Meter(label: "webimage_client_connections", factory: factory)
        refusedClients = CoreMetrics.Counter(label: "webimage_client_connections_refused_total", factory: factory)
        var timeouts: [ClientTimeoutKind: CoreMetrics.Counter] = [:]
        for kind in ClientTimeoutKind.allCases {
            timeouts[kind] = CoreMetrics.Counter(label: "webimage_client_timeouts_total", dimensions: [("kind", kind.rawValue)], factory: factory)
        }
        clientTimeouts = timeouts
        hitCounters = Dictionary(uniqueKeysWithValues: Self.hitTypes.map { type in
            (type, CoreMetrics.Counter(label: "webimage_cache_hits_total", dimensions: [("type", type)], factory: factory))
        })
        queueDepth.set(0)
        clientConnections.set(0)
    }

    func setQueueDepth(_ depth: Int) { queueDepth.set(depth) }

    /// The workers' memory budget as it stands.
    func setMemory(_ budget: MemoryBudget) {
        memoryBudget.set(budget.bytes)
        memoryReserved.set(budget.reservedBytes)
        memoryWaiting.set(budget.waiting)
    }

    /// The types of ``cacheHit(_:)``.
    static let hitTypes = ["memory", "disk", "original"]

    /// A cache hit of `type`, one of ``hitTypes``.
    func cacheHit(_ type: String) {
        guard let counter = hitCounters[type] else { preconditionFailure("cache hit type '\(type)' is not one of \(Self.hitTypes)") }
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
    /// A source download failed and is tried again.
    func sourceRetried() { sourceRetries.increment() }
    func variantProcessed() { processed.increment() }

    /// A client connection was admitted.
    func clientConnected() { clientConnections.increment() }
    /// An admitted client connection closed.
    func clientDisconnected() { clientConnections.decrement() }
    /// A client connection was closed at once: as many as its address may hold were open.
    func clientRefused() { refusedClients.increment() }
    /// A client connection was closed by a deadline.
    func clientTimedOut(_ kind: ClientTimeoutKind) { clientTimeouts[kind]?.increment() }

    /// The prefix of every metric's name in place of `webimage` (`--prometheus-namespace`);
    /// `nil` keeps `webimage`.
    private let namespace: String?

    /// Every metric in the Prometheus text format.
    func render() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        guard let namespace else { return buffer }
        return Self.renamed(buffer, namespace: namespace)
    }

    /// `text` with `webimage_` replaced by `namespace_` where a metric's name starts: at
    /// the start of a line, and after `# HELP ` and `# TYPE `.
    static func renamed(_ text: [UInt8], namespace: String) -> [UInt8] {
        let old = Array("webimage_".utf8)
        let new = Array((namespace + "_").utf8)
        var result: [UInt8] = []
        result.reserveCapacity(text.count + 64)
        for line in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            var line = Array(line)
            for prefix in [Array("# HELP ".utf8), Array("# TYPE ".utf8), []] where line.starts(with: prefix + old) {
                line.replaceSubrange(prefix.count..<prefix.count + old.count, with: new)
                break
            }
            result += line
            result.append(UInt8(ascii: "\n"))
        }
        // The newline added after the last piece is not the text's.
        result.removeLast()
        return result
    }
}
