import Foundation
import Testing
@testable import WebImageServer

/// The `OTEL_*` variables `webimage serve` reads: each one, and values it refuses.
@Suite("Tracing configuration from OTEL_* variables")
struct TracingConfigurationTests {
    @Test("Off unless an endpoint or OTEL_TRACES_EXPORTER=otlp is set")
    func offByDefault() throws {
        #expect(try !TracingConfiguration(environment: [:]).isEnabled)
        #expect(try !TracingConfiguration(environment: ["OTEL_SERVICE_NAME": "x", "OTEL_TRACES_SAMPLER": "always_on"]).isEnabled)
        let named = try TracingConfiguration(environment: ["OTEL_TRACES_EXPORTER": "otlp"])
        #expect(named.isEnabled)
        #expect(named.tracesURL.absoluteString == "http://localhost:4318/v1/traces")
    }

    @Test("OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none win over an endpoint")
    func disabled() throws {
        let endpoint = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]
        #expect(try TracingConfiguration(environment: endpoint).isEnabled)
        #expect(try !TracingConfiguration(environment: endpoint.merging(["OTEL_SDK_DISABLED": "TRUE"]) { $1 }).isEnabled)
        #expect(try TracingConfiguration(environment: endpoint.merging(["OTEL_SDK_DISABLED": "false"]) { $1 }).isEnabled)
        #expect(try !TracingConfiguration(environment: endpoint.merging(["OTEL_TRACES_EXPORTER": "none"]) { $1 }).isEnabled)
    }

    @Test("The general endpoint gets /v1/traces appended; the traces endpoint is used as it is")
    func endpoints() throws {
        let general = try TracingConfiguration(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example:4318/otlp/"])
        #expect(general.tracesURL.absoluteString == "https://collector.example:4318/otlp/v1/traces")
        let specific = try TracingConfiguration(environment: [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://ignored:4318",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:9999/custom/path",
        ])
        #expect(specific.tracesURL.absoluteString == "http://collector:9999/custom/path")
    }

    @Test("Headers: k=v,k=v, percent-decoded; the traces variable overrides a name of the general one")
    func headers() throws {
        let config = try TracingConfiguration(environment: [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
            "OTEL_EXPORTER_OTLP_HEADERS": "api-key=secret%20one, x-tenant = a%2Cb",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "API-KEY=two",
        ])
        #expect(config.headers.map { "\($0.name)=\($0.value)" } == ["x-tenant=a,b", "API-KEY=two"])
    }

    @Test("Service name: OTEL_SERVICE_NAME over service.name of OTEL_RESOURCE_ATTRIBUTES over webimage")
    func serviceName() throws {
        let endpoint = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]
        #expect(try TracingConfiguration(environment: endpoint).serviceName == "webimage")
        let fromResource = try TracingConfiguration(environment: endpoint.merging([
            "OTEL_RESOURCE_ATTRIBUTES": "service.name=from-resource,deployment.environment=prod,host.name=a%3Db",
        ]) { $1 })
        #expect(fromResource.serviceName == "from-resource")
        #expect(fromResource.resourceAttributes.map { "\($0.key)=\($0.value)" } == ["deployment.environment=prod", "host.name=a=b"])
        let named = try TracingConfiguration(environment: endpoint.merging([
            "OTEL_RESOURCE_ATTRIBUTES": "service.name=from-resource", "OTEL_SERVICE_NAME": "images",
        ]) { $1 })
        #expect(named.serviceName == "images")
    }

    @Test("Samplers by name, with OTEL_TRACES_SAMPLER_ARG as the ratio")
    func samplers() throws {
        let cases: [(String, String?, TraceSampler)] = [
            ("always_on", nil, .alwaysOn),
            ("always_off", nil, .alwaysOff),
            ("traceidratio", "0.25", .traceIDRatio(0.25)),
            ("traceidratio", nil, .traceIDRatio(1)),
            ("parentbased_always_on", nil, .parentBased(root: .alwaysOn)),
            ("parentbased_always_off", nil, .parentBased(root: .alwaysOff)),
            ("parentbased_traceidratio", "0.5", .parentBased(root: .traceIDRatio(0.5))),
        ]
        for (name, argument, expected) in cases {
            var environment = ["OTEL_TRACES_EXPORTER": "otlp", "OTEL_TRACES_SAMPLER": name]
            environment["OTEL_TRACES_SAMPLER_ARG"] = argument
            #expect(try TracingConfiguration(environment: environment).sampler == expected, "\(name)")
        }
        #expect(try TracingConfiguration(environment: ["OTEL_TRACES_EXPORTER": "otlp"]).sampler == .parentBased(root: .alwaysOn))
    }

    @Test("Timeout and batch settings in milliseconds and spans")
    func numbers() throws {
        let config = try TracingConfiguration(environment: [
            "OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500", "OTEL_BSP_SCHEDULE_DELAY": "100",
            "OTEL_BSP_MAX_QUEUE_SIZE": "64", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "16", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
        ])
        #expect(config.exportTimeout == .milliseconds(2500))
        #expect(config.scheduleDelay == .milliseconds(100))
        #expect(config.maxQueueSize == 64)
        #expect(config.maxExportBatchSize == 16)
        let defaults = try TracingConfiguration(environment: ["OTEL_TRACES_EXPORTER": "otlp"])
        #expect(defaults.exportTimeout == .seconds(10) && defaults.scheduleDelay == .seconds(5))
        #expect(defaults.maxQueueSize == 2048 && defaults.maxExportBatchSize == 512)
    }

    @Test("Bad values are refused naming the variable")
    func badValues() {
        let cases: [([String: String], String)] = [
            (["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"], "OTEL_EXPORTER_OTLP_PROTOCOL"),
            (["OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"], "OTEL_EXPORTER_OTLP_PROTOCOL"),
            (["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"], "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
            (["OTEL_SDK_DISABLED": "yes"], "OTEL_SDK_DISABLED"),
            (["OTEL_TRACES_EXPORTER": "zipkin"], "OTEL_TRACES_EXPORTER"),
            (["OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"], "OTEL_EXPORTER_OTLP_ENDPOINT"),
            (["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://collector/v1/traces"], "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
            (["OTEL_EXPORTER_OTLP_HEADERS": "novalue"], "OTEL_EXPORTER_OTLP_HEADERS"),
            (["OTEL_EXPORTER_OTLP_TRACES_HEADERS": "=v"], "OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
            (["OTEL_EXPORTER_OTLP_TIMEOUT": "10s"], "OTEL_EXPORTER_OTLP_TIMEOUT"),
            (["OTEL_RESOURCE_ATTRIBUTES": "a=%ZZ"], "OTEL_RESOURCE_ATTRIBUTES"),
            (["OTEL_TRACES_SAMPLER": "sometimes"], "OTEL_TRACES_SAMPLER"),
            (["OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "1.5"], "OTEL_TRACES_SAMPLER_ARG"),
            (["OTEL_BSP_SCHEDULE_DELAY": "0"], "OTEL_BSP_SCHEDULE_DELAY"),
            (["OTEL_BSP_MAX_QUEUE_SIZE": "-1"], "OTEL_BSP_MAX_QUEUE_SIZE"),
            (["OTEL_BSP_MAX_QUEUE_SIZE": "10", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "20"], "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"),
        ]
        for (variables, named) in cases {
            let environment = variables.merging(["OTEL_TRACES_EXPORTER": variables["OTEL_TRACES_EXPORTER"] ?? "otlp"]) { $1 }
            #expect {
                _ = try TracingConfiguration(environment: environment)
            } throws: { error in
                guard let error = error as? TracingConfigError else { return false }
                return error.variable == named && error.message.hasPrefix(named + ": ")
            }
        }
    }
}
