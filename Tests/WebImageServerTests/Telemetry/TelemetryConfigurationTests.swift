import Foundation
import Testing
@testable import WebImageServer

/// The `OTEL_*` variables that decide what `webimage serve` exports, and values it refuses.
@Suite("Telemetry configuration from OTEL_* variables")
struct TelemetryConfigurationTests {
    @Test("Nothing is exported unless an endpoint or an otlp exporter is named")
    func offByDefault() throws {
        let none = try TelemetryConfiguration(environment: [:])
        #expect(!none.exportsTraces && !none.exportsMetrics)
        let unrelated = try TelemetryConfiguration(environment: ["OTEL_SERVICE_NAME": "x", "OTEL_TRACES_SAMPLER": "always_on"])
        #expect(!unrelated.exportsTraces && !unrelated.exportsMetrics)
        #expect(try TelemetryConfiguration(environment: ["OTEL_TRACES_EXPORTER": "otlp"]).exportsTraces)
        #expect(try TelemetryConfiguration(environment: ["OTEL_METRICS_EXPORTER": "OTLP"]).exportsMetrics)
    }

    @Test("A shared endpoint turns on traces; metrics go by OTLP when their endpoint or exporter says so")
    func endpoints() throws {
        let shared = try TelemetryConfiguration(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"])
        #expect(shared.exportsTraces && !shared.exportsMetrics)
        let traces = try TelemetryConfiguration(environment: ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"])
        #expect(traces.exportsTraces && !traces.exportsMetrics)
        let metrics = try TelemetryConfiguration(environment: ["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "https://collector:4318/v1/metrics"])
        #expect(!metrics.exportsTraces && metrics.exportsMetrics)
        let both = try TelemetryConfiguration(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_METRICS_EXPORTER": "otlp"])
        #expect(both.exportsTraces && both.exportsMetrics)
    }

    @Test("imgproxy's IMGPROXY_OPEN_TELEMETRY_ENABLE and _ENABLE_METRICS turn on traces and metrics over an HTTP protocol")
    func imgproxySwitches() throws {
        let http = ["OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"]
        let traces = try TelemetryConfiguration(environment: http.merging(["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true"]) { $1 })
        #expect(traces.exportsTraces && !traces.exportsMetrics)
        let both = try TelemetryConfiguration(environment: http.merging([
            "IMGPROXY_OPEN_TELEMETRY_ENABLE": "1", "IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS": "true",
        ]) { $1 })
        #expect(both.exportsTraces && both.exportsMetrics)
        let metricsAlone = try TelemetryConfiguration(environment: http.merging(["IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS": "true"]) { $1 })
        #expect(!metricsAlone.exportsTraces && !metricsAlone.exportsMetrics, "metrics need the main switch, as in imgproxy")
        let off = try TelemetryConfiguration(environment: http.merging(["IMGPROXY_OPEN_TELEMETRY_ENABLE": "false"]) { $1 })
        #expect(!off.exportsTraces)
        let vetoed = try TelemetryConfiguration(environment: http.merging(["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_TRACES_EXPORTER": "none"]) { $1 })
        #expect(!vetoed.exportsTraces)
        // imgproxy's default protocol is gRPC: without an HTTP one named, start-up stops.
        #expect(throws: TelemetryConfigError.self) { try TelemetryConfiguration(environment: ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true"]) }
        #expect(throws: TelemetryConfigError.self) {
            try TelemetryConfiguration(environment: ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"])
        }
        #expect(throws: TelemetryConfigError.self) { try TelemetryConfiguration(environment: http.merging(["IMGPROXY_OPEN_TELEMETRY_ENABLE": "maybe"]) { $1 }) }
    }

    @Test("OTEL_SDK_DISABLED=true and an exporter named none win over an endpoint")
    func disabled() throws {
        let endpoint = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_METRICS_EXPORTER": "otlp"]
        #expect(try !TelemetryConfiguration(environment: endpoint.merging(["OTEL_SDK_DISABLED": "TRUE"]) { $1 }).exportsTraces)
        #expect(try !TelemetryConfiguration(environment: endpoint.merging(["OTEL_SDK_DISABLED": "TRUE"]) { $1 }).exportsMetrics)
        #expect(try TelemetryConfiguration(environment: endpoint.merging(["OTEL_SDK_DISABLED": "false"]) { $1 }).exportsTraces)
        #expect(try !TelemetryConfiguration(environment: endpoint.merging(["OTEL_TRACES_EXPORTER": "none"]) { $1 }).exportsTraces)
        let metricsOff = try TelemetryConfiguration(environment: [
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://collector:4318/v1/metrics", "OTEL_METRICS_EXPORTER": "none",
        ])
        #expect(!metricsOff.exportsMetrics)
    }

    @Test("OTLP over HTTP as protobuf or JSON; a signal's own protocol wins over the shared one")
    func protocols() throws {
        for proto in ["http/protobuf", "http/json"] {
            #expect(try TelemetryConfiguration(environment: ["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": proto]).exportsTraces)
        }
        let own = try TelemetryConfiguration(environment: [
            "OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
        ])
        #expect(own.exportsTraces)
        // A protocol for a signal that is not exported is not looked at.
        #expect(try !TelemetryConfiguration(environment: ["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]).exportsTraces)
    }

    @Test("Bad values are refused naming the variable")
    func badValues() {
        let cases: [([String: String], String)] = [
            (["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"], "OTEL_EXPORTER_OTLP_PROTOCOL"),
            (["OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"], "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
            (["OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http"], "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"),
            (["OTEL_SDK_DISABLED": "yes"], "OTEL_SDK_DISABLED"),
            (["OTEL_TRACES_EXPORTER": "zipkin"], "OTEL_TRACES_EXPORTER"),
            (["OTEL_METRICS_EXPORTER": "prometheus"], "OTEL_METRICS_EXPORTER"),
            (["OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"], "OTEL_EXPORTER_OTLP_ENDPOINT"),
            (["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://collector/v1/traces"], "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
            (["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://"], "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"),
        ]
        for (environment, named) in cases {
            #expect {
                _ = try TelemetryConfiguration(environment: environment)
            } throws: { error in
                guard let error = error as? TelemetryConfigError else { return false }
                return error.variable == named && error.message.hasPrefix(named + ": ")
            }
        }
    }
}
