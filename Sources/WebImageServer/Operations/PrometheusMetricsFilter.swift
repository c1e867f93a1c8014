import CoreMetrics
import Prometheus

/// The proxy's Prometheus factory (names from ``PrometheusNames``), less the error
/// counters Hummingbird's `MetricsMiddleware` makes for statuses that are not errors: it
/// makes one beside every request counter and increments it only for thrown errors, so
/// those would be listed at 0 forever.
struct PrometheusMetricsFilter: MetricsFactory {
    let prometheus: PrometheusMetricsFactory

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        if label == "hb.request.errors", let status = dimensions.first(where: { $0.0 == "error.type" }).flatMap({ Int($0.1) }), status < 400 {
            return NOOPMetricsHandler.instance
        }
        return prometheus.makeCounter(label: label, dimensions: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        prometheus.makeFloatingPointCounter(label: label, dimensions: dimensions)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        prometheus.makeMeter(label: label, dimensions: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        prometheus.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        prometheus.makeTimer(label: label, dimensions: dimensions)
    }

    func destroyCounter(_ handler: any CounterHandler) {
        guard !(handler is NOOPMetricsHandler) else { return }
        prometheus.destroyCounter(handler)
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { prometheus.destroyFloatingPointCounter(handler) }
    func destroyMeter(_ handler: any MeterHandler) { prometheus.destroyMeter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { prometheus.destroyRecorder(handler) }
    func destroyTimer(_ handler: any TimerHandler) { prometheus.destroyTimer(handler) }
}
