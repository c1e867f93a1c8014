import Foundation
import Prometheus
import WebImage
import WebImageLocking

/// The Prometheus series imgproxy serves, under its names, labels and buckets, for the
/// dashboards and alerts built on them: what `/metrics` serves under imgproxy's profile.
///
/// | Series | What it counts |
/// | --- | --- |
/// | `requests_total` | requests on the image routes (not `/`, `/health` or `/metrics`) |
/// | `status_codes_total{status}` | their answers, by status |
/// | `errors_total{type}` | their errors, by imgproxy's categories (``category(of:)``) |
/// | `request_duration_seconds` | their latency |
/// | `request_span_duration_seconds{span}` | the `queue`, `downloading_source_image` and `processing_image` spans of variants made |
/// | `download_duration_seconds`, `processing_duration_seconds` | imgproxy v3's histograms of the last two spans |
/// | `buffer_size_bytes{type="download"}` | imgproxy v3's histogram of sources' sizes |
/// | `workers` | the work slots |
/// | `requests_in_progress`, `images_in_progress` | image requests in flight; variants in a work slot |
/// | `workers_utilization` | requests in flight per worker, in percent |
/// | `vips_memory_bytes`, `vips_max_memory_bytes`, `vips_allocs` | libvips' own memory (``VipsMemoryStatistics``) |
///
/// Each name is prefixed with `<namespace>_` when the deployment sets a namespace
/// (`IMGPROXY_PROMETHEUS_NAMESPACE`), as imgproxy prefixes them. Durations use
/// Prometheus' default buckets, 5 ms to 10 s, which imgproxy's histograms keep.
final class ImgproxyMetrics: Sendable {
    /// Where the series are kept.
    let registry = PrometheusCollectorRegistry()
    /// The prefix of every name; `nil`: none.
    private let namespace: String?
    private let requests: Counter
    private let duration: DurationHistogram
    private let queueSpan: DurationHistogram
    private let downloadSpan: DurationHistogram
    private let processingSpan: DurationHistogram
    private let downloadDuration: DurationHistogram
    private let processingDuration: DurationHistogram
    private let downloadSizes: ValueHistogram
    private let workersGauge: Gauge
    private let requestsInProgress: Gauge
    private let imagesInProgress: Gauge
    private let workersUtilization: Gauge
    private let vipsMemory: Gauge
    private let vipsMaxMemory: Gauge
    private let vipsAllocations: Gauge
    private let statusCounters = InlineLocked<[Int: Counter]>([:])
    private let errorCounters = InlineLocked<[String: Counter]>([:])
    /// Image requests in flight.
    private let inFlight = InlineLocked(0)
    /// The work limiter whose slots are the workers; `nil`: none.
    private let limiter: WorkLimiter?

    /// Prometheus' default histogram buckets (5 ms to 10 s), as imgproxy's histograms have them.
    static let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// imgproxy v3's buckets of `buffer_size_bytes`: 1 KiB doubling 14 times, to 8 MiB.
    static let sizeBuckets: [Double] = (0..<14).map { 1024 * pow(2, Double($0)) }

    /// The series of a server whose work runs in `limiter`'s slots, named with
    /// `<namespace>_` first when `namespace` is given.
    init(namespace: String?, limiter: WorkLimiter?) {
        self.limiter = limiter
        self.namespace = namespace
        let registry = registry
        func spanHistogram(_ span: String) -> DurationHistogram {
            registry.makeDurationHistogram(
                descriptor: Self.name("request_span_duration_seconds", "A histogram of the request spans duration separated by span name.", in: namespace),
                labels: [("span", span)], buckets: Self.durationBuckets
            )
        }
        requests = registry.makeCounter(descriptor: Self.name("requests_total", "A counter of the total number of HTTP requests imgproxy processed.", in: namespace))
        duration = registry.makeDurationHistogram(
            descriptor: Self.name("request_duration_seconds", "A histogram of the response latency.", in: namespace), buckets: Self.durationBuckets
        )
        queueSpan = spanHistogram("queue")
        downloadSpan = spanHistogram("downloading_source_image")
        processingSpan = spanHistogram("processing_image")
        downloadDuration = registry.makeDurationHistogram(
            descriptor: Self.name("download_duration_seconds", "A histogram of the source image downloading latency.", in: namespace), buckets: Self.durationBuckets
        )
        processingDuration = registry.makeDurationHistogram(
            descriptor: Self.name("processing_duration_seconds", "A histogram of the image processing latency.", in: namespace), buckets: Self.durationBuckets
        )
        downloadSizes = registry.makeValueHistogram(
            descriptor: Self.name("buffer_size_bytes", "A histogram of the buffer size in bytes.", in: namespace), labels: [("type", "download")], buckets: Self.sizeBuckets
        )
        workersGauge = registry.makeGauge(descriptor: Self.name("workers", "A gauge of the number of running workers.", in: namespace))
        requestsInProgress = registry.makeGauge(
            descriptor: Self.name("requests_in_progress", "A gauge of the number of requests currently being in progress.", in: namespace)
        )
        imagesInProgress = registry.makeGauge(
            descriptor: Self.name("images_in_progress", "A gauge of the number of images currently being in progress.", in: namespace)
        )
        workersUtilization = registry.makeGauge(descriptor: Self.name("workers_utilization", "A gauge of the workers utilization in percents.", in: namespace))
        vipsMemory = registry.makeGauge(descriptor: Self.name("vips_memory_bytes", "A gauge of the vips tracked memory usage in bytes.", in: namespace))
        vipsMaxMemory = registry.makeGauge(descriptor: Self.name("vips_max_memory_bytes", "A gauge of the max vips tracked memory usage in bytes.", in: namespace))
        vipsAllocations = registry.makeGauge(descriptor: Self.name("vips_allocs", "A gauge of the number of active vips allocations.", in: namespace))
        workersGauge.set(to: Double(limiter?.workers ?? 0))
    }

    private static let errorsHelp = "A counter of the occurred errors separated by type."

    /// imgproxy's `name` under `namespace` (`<namespace>_<name>`), with its help text.
    private static func name(_ name: String, _ help: String, in namespace: String?) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: namespace, metricName: name, unitName: "", helpText: help)
    }

    /// An image request arrived.
    func requestStarted() {
        requests.increment()
        inFlight.withLock { $0 += 1 }
    }

    /// An image request that started `duration` ago was answered with `status`, or failed
    /// with `error`.
    func requestEnded(status: Int, error: ProxyError?, after duration: Duration) {
        inFlight.withLock { $0 -= 1 }
        self.duration.record(duration)
        statusCounter(status).increment()
        if let error, let category = Self.category(of: error) { errorCounter(category).increment() }
    }

    /// The spans of a variant made for a request (``VariantTimings``): its wait for a slot,
    /// its source's download (when it was downloaded, `downloadedBytes` long) and its
    /// processing.
    func variantMade(_ timings: VariantTimings, downloadedBytes: Int?) {
        queueSpan.record(timings.waiting)
        if let downloadedBytes {
            downloadSpan.record(timings.loading)
            downloadDuration.record(timings.loading)
            downloadSizes.record(Double(downloadedBytes))
        }
        processingSpan.record(timings.making)
        processingDuration.record(timings.making)
    }

    /// imgproxy's category of `error` (the `type` of `errors_total`); `nil` for one imgproxy
    /// does not count (a cancelled request, a path that is not served).
    static func category(of error: ProxyError) -> String? {
        switch error.kind {
        case .invalidURL: "path_parsing"
        case .forbidden, .invalidSourceURL: "security"
        case .sourceUnreachable, .invalidSourceImage: "download"
        case .brokenImage, .internalError: "processing"
        case .tooManyRequests: "queue"
        case .timeout: "timeout"
        case .cancelled, .notFound, .methodNotAllowed: nil
        }
    }

    /// Every series in the Prometheus text format, the gauges read as they stand.
    func render() -> [UInt8] {
        let requests = Double(inFlight.withLock { $0 })
        requestsInProgress.set(to: requests)
        imagesInProgress.set(to: Double(limiter?.running ?? 0))
        let workers = limiter?.workers ?? 0
        workersUtilization.set(to: workers > 0 ? requests / Double(workers) * 100 : 0)
        let vips = VipsMemoryStatistics.current
        vipsMemory.set(to: Double(vips.bytes))
        vipsMaxMemory.set(to: Double(vips.highWaterBytes))
        vipsAllocations.set(to: Double(vips.allocations))
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }

    private func statusCounter(_ status: Int) -> Counter {
        statusCounters.withLock { counters in
            if let existing = counters[status] { return existing }
            let made = registry.makeCounter(
                descriptor: Self.name("status_codes_total", "A counter of the response status codes.", in: namespace),
                labels: [("status", String(status))]
            )
            counters[status] = made
            return made
        }
    }

    private func errorCounter(_ category: String) -> Counter {
        errorCounters.withLock { counters in
            if let existing = counters[category] { return existing }
            let made = registry.makeCounter(descriptor: Self.name("errors_total", Self.errorsHelp, in: namespace), labels: [("type", category)])
            counters[category] = made
            return made
        }
    }
}
