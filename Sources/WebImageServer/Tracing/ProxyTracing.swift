import Logging
import Tracing

/// Turns the proxy's tracing on: an ``OTLPTracer`` bootstrapped in `InstrumentationSystem`
/// (once per process), exporting through a ``BatchSpanProcessor`` to the OTLP/HTTP
/// receiver the configuration names.
public enum ProxyTracing {
    /// Bootstraps the tracer when `configuration` enables tracing and returns its
    /// processor, to run with the server (``ProxyServer/run(services:onRunning:)``) so it
    /// exports on schedule and flushes on shutdown; `nil` when tracing is off.
    ///
    /// Call it before creating the ``ProxyServer``: the server's downloader and request
    /// spans use the tracer bootstrapped when it is made.
    public static func bootstrap(_ configuration: TracingConfiguration, logger: Logger = Logger(label: "webimage.tracing")) -> BatchSpanProcessor? {
        guard configuration.isEnabled else { return nil }
        let processor = BatchSpanProcessor(configuration: configuration, exporter: OTLPHTTPExporter(configuration: configuration), logger: logger)
        InstrumentationSystem.bootstrap(OTLPTracer(sampler: configuration.sampler, processor: processor))
        return processor
    }
}
