extension TelemetryConfiguration {
    /// imgproxy v3's OpenTelemetry variables, which v4 replaced with the standard ones.
    public static var imgproxyV3Variables: [String] { ImgproxyEnvironment.formerReadElsewhere.keys.sorted() }

    /// The standard variables imgproxy v3's OpenTelemetry variables of `environment` stand
    /// for, as v3 sets them: an endpoint (`host:port`) turns exporting on and becomes
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` (`https://`, or `http://` for the `http` protocol and
    /// for insecure gRPC); the protocol (`grpc` by default, `http`, `https`), the service
    /// name, the propagators and the timeout (seconds, as milliseconds) become their
    /// `OTEL_*` counterparts. Nothing when neither the endpoint nor
    /// `IMGPROXY_OPEN_TELEMETRY_ENABLE` is set. ``init(environment:)`` reads them with the
    /// rest, and bootstrapping sets them in the process's environment.
    public static func standardVariables(fromImgproxyV3 environment: [String: String]) -> [String: String] {
        func value(_ name: String) -> String? { Self.value(name, in: environment) }
        let endpoint = value("IMGPROXY_OPEN_TELEMETRY_ENDPOINT")
        let enabled = endpoint != nil || value("IMGPROXY_OPEN_TELEMETRY_ENABLE").flatMap(ServerSetting.parsedBoolean) == true
        guard enabled else { return [:] }
        var standard: [String: String] = [:]
        if endpoint != nil { standard["IMGPROXY_OPEN_TELEMETRY_ENABLE"] = "true" }
        let protocolName = value("IMGPROXY_OPEN_TELEMETRY_PROTOCOL")?.lowercased() ?? "grpc"
        if value("IMGPROXY_OPEN_TELEMETRY_PROTOCOL") != nil {
            // v3 named the HTTP protocols `http` and `https`: both send protobuf.
            standard["OTEL_EXPORTER_OTLP_PROTOCOL"] = protocolName == "grpc" ? "grpc" : "http/protobuf"
        }
        if let endpoint {
            let insecure = value("IMGPROXY_OPEN_TELEMETRY_GRPC_INSECURE").flatMap(ServerSetting.parsedBoolean) == true
            let scheme = protocolName == "http" || (protocolName == "grpc" && insecure) ? "http" : "https"
            standard["OTEL_EXPORTER_OTLP_ENDPOINT"] = "\(scheme)://\(endpoint)"
        }
        if let name = value("IMGPROXY_OPEN_TELEMETRY_SERVICE_NAME") { standard["OTEL_SERVICE_NAME"] = name }
        if let propagators = value("IMGPROXY_OPEN_TELEMETRY_PROPAGATORS") { standard["OTEL_PROPAGATORS"] = propagators }
        if let timeout = value("IMGPROXY_OPEN_TELEMETRY_CONNECTION_TIMEOUT").flatMap(Int.init), timeout > 0 {
            standard["OTEL_EXPORTER_OTLP_TIMEOUT"] = String(timeout * 1000)
        }
        return standard
    }
}
