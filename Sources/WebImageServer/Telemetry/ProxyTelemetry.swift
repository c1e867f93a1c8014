import Foundation
import CoreMetrics
import Logging
import OTel
import Prometheus
import ServiceLifecycle
import Tracing

/// What a `webimage serve` process sets up once, before it makes its ``ProxyServer``: the
/// process's `MetricsSystem`, recording into the Prometheus registry `/metrics` serves
/// (and by OTLP as well when asked), and swift-otel's tracer in `InstrumentationSystem`
/// when traces are exported.
///
///     let telemetry = try ProxyTelemetry.bootstrap(try TelemetryConfiguration(environment: environment), logger: logger)
///     let server = try ProxyServer(config: config, logger: logger, telemetry: telemetry)
///     try await server.run(services: telemetry.services)
///
/// `MetricsSystem` and `InstrumentationSystem` can be bootstrapped once per process, so
/// this too is called once.
public struct ProxyTelemetry: Sendable {
    /// The exporters, to run with the server and stop after it, so that what they still hold
    /// is exported when the server stops.
    public let services: [any Service]
    /// The registry `/metrics` serves: the proxy's metrics and Hummingbird's request metrics.
    let registry: PrometheusCollectorRegistry
    /// What the proxy's metrics are recorded through: into ``registry``, and by OTLP when asked.
    let metricsFactory: any MetricsFactory
    /// Whether requests are traced (swift-otel's tracer is bootstrapped).
    let tracesRequests: Bool

    /// Bootstraps `MetricsSystem` and, when `configuration` exports traces,
    /// `InstrumentationSystem`; swift-otel's own messages go to `logger`.
    ///
    /// Call it before creating the ``ProxyServer``: the server's downloader and request
    /// spans use the tracer bootstrapped when it is made.
    /// - Throws: ``TelemetryConfigError`` when swift-otel cannot make an exporter.
    public static func bootstrap(_ configuration: TelemetryConfiguration, logger: Logger) throws(TelemetryConfigError) -> ProxyTelemetry {
        // swift-otel reads its settings from the process's environment only.
        for (name, value) in configuration.standardVariablesToSet { setenv(name, value, 1) }
        var otel = OTel.Configuration.default
        otel.serviceName = TelemetryConfiguration.defaultServiceName
        otel.diagnosticLogger = .custom(logger)
        // swift-otel reports each variable it reads at info; warnings (a value it cannot use) still show.
        otel.diagnosticLogLevel = .warning
        otel.logs.enabled = false
        otel.traces.enabled = configuration.exportsTraces
        otel.metrics.enabled = configuration.exportsMetrics
        otel.metrics.defaultDurationHistogramBuckets = ServerMetrics.durationBuckets

        let registry = PrometheusCollectorRegistry()
        let prometheus = ServerMetrics.prometheusFactory(registry)
        var services: [any Service] = []
        let metricsFactory: any MetricsFactory
        if configuration.exportsMetrics {
            do {
                let (factory, service) = try OTel.makeMetricsBackend(configuration: otel)
                metricsFactory = MultiplexMetricsHandler(factories: [prometheus, factory])
                services.append(OffEventLoopService(service: service))
            } catch {
                throw TelemetryConfigError("", "cannot export metrics by OTLP: \(error) (check the OTEL_EXPORTER_OTLP_METRICS_* variables)")
            }
        } else {
            metricsFactory = prometheus
        }
        MetricsSystem.bootstrap(metricsFactory)
        if configuration.exportsTraces {
            do {
                let (tracer, service) = try OTel.makeTracingBackend(configuration: otel)
                InstrumentationSystem.bootstrap(tracer)
                services.append(OffEventLoopService(service: service))
            } catch {
                throw TelemetryConfigError("", "cannot export traces by OTLP: \(error) (check the OTEL_EXPORTER_OTLP_TRACES_* variables)")
            }
        }
        return ProxyTelemetry(
            services: services, registry: registry, metricsFactory: metricsFactory, tracesRequests: configuration.exportsTraces
        )
    }
}
