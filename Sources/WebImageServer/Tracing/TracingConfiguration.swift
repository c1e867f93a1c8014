import Foundation

/// How the proxy exports traces, read from the standard OpenTelemetry variables
/// (`OTEL_*`). Tracing is off unless an endpoint is set or `OTEL_TRACES_EXPORTER=otlp`;
/// spans go by OTLP/HTTP with the JSON encoding to `<endpoint>/v1/traces`.
public struct TracingConfiguration: Sendable {
    /// The endpoint used when only `OTEL_TRACES_EXPORTER=otlp` is set.
    public static let defaultEndpoint = "http://localhost:4318"

    /// Whether traces are recorded and exported at all.
    public var isEnabled = false
    /// Where batches are POSTed: the full traces URL.
    public var tracesURL = URL(string: defaultEndpoint + "/v1/traces")!
    /// Headers sent with every export (e.g. an API key).
    public var headers: [(name: String, value: String)] = []
    /// How long one export may take.
    public var exportTimeout: Duration = .seconds(10)
    /// The `service.name` resource attribute.
    public var serviceName = "webimage"
    /// Further resource attributes (`OTEL_RESOURCE_ATTRIBUTES`), in order.
    public var resourceAttributes: [(key: String, value: String)] = []
    /// Which traces are recorded.
    public var sampler: TraceSampler = .parentBased(root: .alwaysOn)
    /// The longest a finished span waits before it is exported.
    public var scheduleDelay: Duration = .milliseconds(5000)
    /// Finished spans held for export at most; more are dropped and counted.
    public var maxQueueSize = 2048
    /// Spans in one export at most.
    public var maxExportBatchSize = 512

    /// Tracing off.
    public init() {}

    /// Reads the `OTEL_*` variables of `environment`.
    /// - Throws: ``TracingConfigError`` naming the first variable whose value cannot be used.
    public init(environment: [String: String]) throws(TracingConfigError) {
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            return raw
        }
        if let disabled = value("OTEL_SDK_DISABLED") {
            switch disabled.lowercased() {
            case "true": return
            case "false": break
            default: throw TracingConfigError("OTEL_SDK_DISABLED", "'\(disabled)' is not true or false")
            }
        }
        var exporterNamed = false
        if let exporter = value("OTEL_TRACES_EXPORTER") {
            switch exporter.lowercased() {
            case "none": return
            case "otlp": exporterNamed = true
            default: throw TracingConfigError("OTEL_TRACES_EXPORTER", "'\(exporter)' is not supported (otlp or none)")
            }
        }
        if let tracesEndpoint = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            // The signal-specific endpoint is used as it is.
            tracesURL = try Self.url(tracesEndpoint, variable: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        } else if let endpoint = value("OTEL_EXPORTER_OTLP_ENDPOINT") {
            let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
            tracesURL = try Self.url(base + "/v1/traces", variable: "OTEL_EXPORTER_OTLP_ENDPOINT")
        } else if !exporterNamed {
            return
        }
        if let proto = value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? value("OTEL_EXPORTER_OTLP_PROTOCOL") {
            let variable = value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") != nil ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL"
            guard proto == "http/json" else {
                throw TracingConfigError(variable, "'\(proto)' is not supported: webimage exports OTLP over HTTP as JSON only (set http/json)")
            }
        }
        for variable in ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"] {
            guard let list = value(variable) else { continue }
            for (name, headerValue) in try Self.pairs(list, variable: variable) {
                headers.removeAll { $0.name.lowercased() == name.lowercased() }
                headers.append((name, headerValue))
            }
        }
        if let timeout = value("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT").map({ ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", $0) })
            ?? value("OTEL_EXPORTER_OTLP_TIMEOUT").map({ ("OTEL_EXPORTER_OTLP_TIMEOUT", $0) }) {
            exportTimeout = .milliseconds(try Self.positiveInteger(timeout.1, variable: timeout.0, allowZero: false))
        }
        if let attributes = value("OTEL_RESOURCE_ATTRIBUTES") {
            resourceAttributes = try Self.pairs(attributes, variable: "OTEL_RESOURCE_ATTRIBUTES").map { (key: $0.0, value: $0.1) }
        }
        if let name = resourceAttributes.last(where: { $0.key == "service.name" })?.value { serviceName = name }
        if let name = value("OTEL_SERVICE_NAME") { serviceName = name }
        resourceAttributes.removeAll { $0.key == "service.name" }
        sampler = try Self.sampler(name: value("OTEL_TRACES_SAMPLER"), argument: value("OTEL_TRACES_SAMPLER_ARG"))
        if let delay = value("OTEL_BSP_SCHEDULE_DELAY") {
            scheduleDelay = .milliseconds(try Self.positiveInteger(delay, variable: "OTEL_BSP_SCHEDULE_DELAY", allowZero: false))
        }
        if let size = value("OTEL_BSP_MAX_QUEUE_SIZE") {
            maxQueueSize = try Self.positiveInteger(size, variable: "OTEL_BSP_MAX_QUEUE_SIZE", allowZero: false, unit: "spans")
        }
        if let size = value("OTEL_BSP_MAX_EXPORT_BATCH_SIZE") {
            maxExportBatchSize = try Self.positiveInteger(size, variable: "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", allowZero: false, unit: "spans")
        }
        guard maxExportBatchSize <= maxQueueSize else {
            throw TracingConfigError("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "\(maxExportBatchSize) is more than OTEL_BSP_MAX_QUEUE_SIZE (\(maxQueueSize))")
        }
        isEnabled = true
    }

    /// An `http` or `https` URL with a host.
    private static func url(_ text: String, variable: String) throws(TracingConfigError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false
        else { throw TracingConfigError(variable, "'\(text)' is not an http or https URL") }
        return url
    }

    /// A positive whole number (milliseconds, or a count of spans).
    private static func positiveInteger(_ text: String, variable: String, allowZero: Bool, unit: String = "milliseconds") throws(TracingConfigError) -> Int {
        guard let number = Int(text), number > 0 || (allowZero && number == 0) else {
            throw TracingConfigError(variable, "'\(text)' is not a positive whole number of \(unit)")
        }
        return number
    }

    /// `k=v,k=v` with percent-encoded keys and values (the W3C Baggage form the OTEL
    /// variables use).
    static func pairs(_ list: String, variable: String) throws(TracingConfigError) -> [(String, String)] {
        var result: [(String, String)] = []
        for member in list.split(separator: ",") {
            let trimmed = member.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "="),
                  let key = String(trimmed[..<equals]).trimmingCharacters(in: .whitespaces).removingPercentEncoding, !key.isEmpty,
                  let value = String(trimmed[trimmed.index(after: equals)...]).trimmingCharacters(in: .whitespaces).removingPercentEncoding
            else { throw TracingConfigError(variable, "'\(trimmed)' is not key=value (percent-encoded)") }
            result.append((key, value))
        }
        return result
    }

    /// The sampler `OTEL_TRACES_SAMPLER` names, with `OTEL_TRACES_SAMPLER_ARG` as the ratio
    /// of the ratio samplers (default 1).
    static func sampler(name: String?, argument: String?) throws(TracingConfigError) -> TraceSampler {
        func ratio() throws(TracingConfigError) -> Double {
            guard let argument else { return 1 }
            guard let ratio = Double(argument), (0...1).contains(ratio) else {
                throw TracingConfigError("OTEL_TRACES_SAMPLER_ARG", "'\(argument)' is not a ratio from 0 to 1")
            }
            return ratio
        }
        switch name?.lowercased() ?? "parentbased_always_on" {
        case "always_on": return .alwaysOn
        case "always_off": return .alwaysOff
        case "traceidratio": return .traceIDRatio(try ratio())
        case "parentbased_always_on": return .parentBased(root: .alwaysOn)
        case "parentbased_always_off": return .parentBased(root: .alwaysOff)
        case "parentbased_traceidratio": return .parentBased(root: .traceIDRatio(try ratio()))
        default:
            throw TracingConfigError(
                "OTEL_TRACES_SAMPLER",
                "'\(name ?? "")' is not supported (always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)"
            )
        }
    }
}
