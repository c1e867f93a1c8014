import Foundation

/// Which OpenTelemetry signals `webimage serve` exports, decided from the standard `OTEL_*`
/// variables; swift-otel reads the rest of them (endpoints, headers, timeouts, sampler,
/// batching, resource attributes, export interval) itself.
///
/// - Traces go out when `OTEL_TRACES_EXPORTER=otlp`, or when an endpoint is set
///   (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and the exporter
///   is not `none`.
/// - Metrics go out (besides `/metrics`) when `OTEL_METRICS_EXPORTER=otlp`, or when
///   `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` is set and the exporter is not `none`: a shared
///   endpoint alone turns on traces only, since `/metrics` serves the metrics already.
/// - imgproxy's `IMGPROXY_OPEN_TELEMETRY_ENABLE` turns traces on as well, and
///   `IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS` with it metrics; they need
///   `OTEL_EXPORTER_OTLP_PROTOCOL` set to an HTTP protocol, since imgproxy's default is gRPC.
/// - `OTEL_SDK_DISABLED=true` turns both off.
/// - OTLP goes over HTTP, as protobuf (`http/protobuf`, the default) or JSON
///   (`http/json`); gRPC is not built in, and asking for it stops start-up.
public struct TelemetryConfiguration: Sendable, Equatable {
    /// The `service.name` unless `OTEL_SERVICE_NAME` (or `service.name` in
    /// `OTEL_RESOURCE_ATTRIBUTES`) says otherwise.
    public static let defaultServiceName = "webimage"

    /// Whether request traces are exported.
    public var exportsTraces = false
    /// Whether the proxy's metrics are exported by OTLP as well.
    public var exportsMetrics = false
    /// The standard variables imgproxy v3's variables stand for
    /// (``standardVariables(fromImgproxyV3:)``): ``ProxyTelemetry/bootstrap(_:logger:)``
    /// sets them in the process's environment, where swift-otel reads its settings.
    public var standardVariablesToSet: [String: String] = [:]

    /// Nothing exported.
    public init() {}

    /// Reads the `OTEL_*` variables of `environment` that decide what is exported, with
    /// those imgproxy v3's variables stand for.
    /// - Throws: ``TelemetryConfigError`` naming the first variable whose value cannot be used.
    public init(environment given: [String: String]) throws(TelemetryConfigError) {
        standardVariablesToSet = Self.standardVariables(fromImgproxyV3: given)
        let environment = given.merging(standardVariablesToSet) { $1 }
        func value(_ name: String) -> String? { Self.value(name, in: environment) }
        if let disabled = value("OTEL_SDK_DISABLED") {
            switch disabled.lowercased() {
            case "true": return
            case "false": break
            default: throw TelemetryConfigError("OTEL_SDK_DISABLED", "'\(disabled)' is not true or false")
            }
        }
        exportsTraces = try Self.isExported(
            exporter: "OTEL_TRACES_EXPORTER", endpoints: ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"],
            value: value
        )
        exportsMetrics = try Self.isExported(
            exporter: "OTEL_METRICS_EXPORTER", endpoints: ["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"], value: value,
            otherwise: "; Prometheus metrics are always served at /metrics"
        )
        try applyImgproxySwitches(value)
        let signals = (exportsTraces ? ["TRACES"] : []) + (exportsMetrics ? ["METRICS"] : [])
        for signal in signals {
            for variable in ["OTEL_EXPORTER_OTLP_\(signal)_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] {
                guard let proto = value(variable) else { continue }
                guard proto == "http/protobuf" || proto == "http/json" else {
                    throw TelemetryConfigError(
                        variable, "'\(proto)' is not supported: webimage exports OTLP over HTTP (http/protobuf, the default, or http/json)"
                    )
                }
                // The signal's own variable wins over the shared one.
                break
            }
            for variable in ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_\(signal)_ENDPOINT"] {
                guard let endpoint = value(variable) else { continue }
                guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                      url.host?.isEmpty == false
                else { throw TelemetryConfigError(variable, "'\(endpoint)' is not an http or https URL") }
            }
        }
    }

    /// The value of the variable `name` of `environment`, trimmed; `nil` when unset or blank.
    static func value(_ name: String, in environment: [String: String]) -> String? {
        guard let raw = environment[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        return raw
    }

    /// imgproxy's switches: `IMGPROXY_OPEN_TELEMETRY_ENABLE` turns traces on, and with it
    /// `IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS` metrics, unless the `OTEL_*` exporter
    /// variables say `none`. imgproxy exports by gRPC unless `OTEL_EXPORTER_OTLP_PROTOCOL`
    /// names another protocol, so the switch needs that variable set to an HTTP one: the
    /// same endpoint spoken to over HTTP would lose every span without a word.
    private mutating func applyImgproxySwitches(_ value: (String) -> String?) throws(TelemetryConfigError) {
        func flag(_ name: String) throws(TelemetryConfigError) -> Bool {
            guard let text = value(name) else { return false }
            guard let flag = ServerSetting.parsedBoolean(text) else { throw TelemetryConfigError(name, "'\(text)' is not true or false") }
            return flag
        }
        guard try flag("IMGPROXY_OPEN_TELEMETRY_ENABLE") else { return }
        let protocols = ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"]
        guard protocols.contains(where: { value($0) != nil }) else {
            throw TelemetryConfigError(
                "IMGPROXY_OPEN_TELEMETRY_ENABLE",
                "imgproxy exports by gRPC when OTEL_EXPORTER_OTLP_PROTOCOL is unset, and webimage exports by OTLP/HTTP only: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf and an HTTP endpoint (the collector's port 4318)"
            )
        }
        if value("OTEL_TRACES_EXPORTER")?.lowercased() != "none" { exportsTraces = true }
        if try flag("IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS"), value("OTEL_METRICS_EXPORTER")?.lowercased() != "none" { exportsMetrics = true }
    }

    /// Whether one signal is exported: `exporter` names `otlp`, or is unset while one of
    /// `endpoints` is set.
    private static func isExported(
        exporter: String, endpoints: [String], value: (String) -> String?, otherwise: String = ""
    ) throws(TelemetryConfigError) -> Bool {
        switch value(exporter)?.lowercased() {
        case "otlp": return true
        case "none": return false
        case nil: return endpoints.contains { value($0) != nil }
        case let other?: throw TelemetryConfigError(exporter, "'\(other)' is not supported (otlp or none\(otherwise))")
        }
    }
}
