import Testing
@testable import WebImageServer

/// imgproxy v3's OpenTelemetry variables, read as v3 maps them onto the standard ones
/// (imgproxy v3.29 metrics/otel/otel.go, mapDeprecatedConfig), and v3's other former
/// variables named with their reason.
@Suite("imgproxy v3's telemetry variables")
struct ImgproxyV3TelemetryTests {
    /// v3's variables and the standard ones they stand for.
    static let cases: [(given: [String: String], standard: [String: String])] = [
        ([:], [:]),
        (["IMGPROXY_OPEN_TELEMETRY_SERVICE_NAME": "images"], [:]),
        (["IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "otel:4317"],
         ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel:4317"]),
        (["IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "otel:4317", "IMGPROXY_OPEN_TELEMETRY_GRPC_INSECURE": "true"],
         ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4317"]),
        (["IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "otel:4318", "IMGPROXY_OPEN_TELEMETRY_PROTOCOL": "http"],
         ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"]),
        (["IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "otel:4318", "IMGPROXY_OPEN_TELEMETRY_PROTOCOL": "https", "IMGPROXY_OPEN_TELEMETRY_GRPC_INSECURE": "true"],
         ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"]),
        (["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "IMGPROXY_OPEN_TELEMETRY_SERVICE_NAME": "images",
          "IMGPROXY_OPEN_TELEMETRY_PROPAGATORS": "tracecontext,baggage", "IMGPROXY_OPEN_TELEMETRY_CONNECTION_TIMEOUT": "5"],
         ["OTEL_SERVICE_NAME": "images", "OTEL_PROPAGATORS": "tracecontext,baggage", "OTEL_EXPORTER_OTLP_TIMEOUT": "5000"]),
    ]

    @Test("each of v3's variables becomes the standard one v3 sets", arguments: cases)
    func mapped(_ example: (given: [String: String], standard: [String: String])) {
        #expect(TelemetryConfiguration.standardVariables(fromImgproxyV3: example.given) == example.standard)
    }

    @Test("v3's endpoint over HTTP turns traces on; over gRPC, v3's default, start-up is refused naming the protocol")
    func exporting() throws {
        let http = ["IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "127.0.0.1:4318", "IMGPROXY_OPEN_TELEMETRY_PROTOCOL": "http"]
        let configuration = try TelemetryConfiguration(environment: http.merging(TelemetryConfiguration.standardVariables(fromImgproxyV3: http)) { $1 })
        #expect(configuration.exportsTraces && !configuration.exportsMetrics)
        // Read from the variables alone, as webimage serve reads them, with the standard ones to set.
        let direct = try TelemetryConfiguration(environment: http)
        #expect(direct.exportsTraces && direct.standardVariablesToSet == TelemetryConfiguration.standardVariables(fromImgproxyV3: http))
        #expect(throws: TelemetryConfigError.self) { try TelemetryConfiguration(environment: ["IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "127.0.0.1:4317"]) }
        let grpc = ["IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "127.0.0.1:4317"]
        #expect(throws: TelemetryConfigError.self) {
            try TelemetryConfiguration(environment: grpc.merging(TelemetryConfiguration.standardVariables(fromImgproxyV3: grpc)) { $1 })
        }
    }

    @Test("v3's variables are not warned about as imgproxy's unknown ones; its buffer settings are named with why they do nothing")
    func formerNames() throws {
        var config = ServerConfig()
        var environment = Dictionary(uniqueKeysWithValues: TelemetryConfiguration.imgproxyV3Variables.map { ($0, "1") })
        environment["IMGPROXY_DOWNLOAD_BUFFER_SIZE"] = "65536"
        environment["IMGPROXY_MAX_SVG_CHECK_BYTES"] = "32768"
        environment["IMGPROXY_BUFFER_POOL_CALIBRATION_THRESHOLD"] = "1024"
        let ignored = try ImgproxyEnvironment.apply(environment, to: &config)
        #expect(ignored == ["IMGPROXY_BUFFER_POOL_CALIBRATION_THRESHOLD", "IMGPROXY_DOWNLOAD_BUFFER_SIZE", "IMGPROXY_MAX_SVG_CHECK_BYTES"])
        let warning = try #require(ImgproxyEnvironment.warning(ignored: ignored))
        #expect(warning.contains("IMGPROXY_DOWNLOAD_BUFFER_SIZE (imgproxy v3's download buffer pool"))
        #expect(warning.contains("IMGPROXY_MAX_SVG_CHECK_BYTES (imgproxy v3's bound"))
        #expect(!warning.contains("no such variable"))
    }
}
