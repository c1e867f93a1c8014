import Foundation
import WebImageTestSupport

/// An OTLP/HTTP receiver on 127.0.0.1 for the telemetry tests: a ``TestOrigin`` answering
/// POSTs to `/v1/traces` and `/v1/metrics` with `{}` and keeping their bodies. Spans and
/// metrics are read from JSON exports (`http/json`); protobuf exports are kept as they came.
final class OTLPReceiver: Sendable {
    let origin: TestOrigin

    private init(origin: TestOrigin) {
        self.origin = origin
    }

    static func start() async throws -> OTLPReceiver {
        let origin = try await TestOrigin.start()
        origin.register("/v1/traces", .text("{}", contentType: "application/json"))
        origin.register("/v1/metrics", .text("{}", contentType: "application/json"))
        return OTLPReceiver(origin: origin)
    }

    /// What `OTEL_EXPORTER_OTLP_ENDPOINT` is set to.
    var endpoint: String { origin.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) }

    /// The trace export requests received.
    var exports: [TestOriginRequest] { origin.requests("/v1/traces") }

    /// The metric export requests received.
    var metricExports: [TestOriginRequest] { origin.requests("/v1/metrics") }

    /// Every span received so far in JSON exports.
    var spans: [ReceivedSpan] {
        exports.flatMap { request -> [ReceivedSpan] in
            guard let json = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
                  let resourceSpans = json["resourceSpans"] as? [[String: Any]] else { return [] }
            return resourceSpans.flatMap { resourceSpan -> [ReceivedSpan] in
                let resource = ReceivedSpan.attributes((resourceSpan["resource"] as? [String: Any])?["attributes"])
                let scopeSpans = resourceSpan["scopeSpans"] as? [[String: Any]] ?? []
                return scopeSpans.flatMap { ($0["spans"] as? [[String: Any]] ?? []).map { ReceivedSpan(json: $0, resource: resource) } }
            }
        }
    }

    /// The names of the metrics received so far in JSON exports.
    var metricNames: Set<String> {
        var names: Set<String> = []
        for request in metricExports {
            guard let json = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any] else { continue }
            for resourceMetrics in json["resourceMetrics"] as? [[String: Any]] ?? [] {
                for scope in resourceMetrics["scopeMetrics"] as? [[String: Any]] ?? [] {
                    for metric in scope["metrics"] as? [[String: Any]] ?? [] {
                        if let name = metric["name"] as? String { names.insert(name) }
                    }
                }
            }
        }
        return names
    }

    /// The spans of one trace.
    func trace(_ traceID: String) -> [ReceivedSpan] { spans.filter { $0.traceID == traceID } }

    func shutdown() async throws { try await origin.shutdown() }
}

/// One span as the receiver got it, IDs as hex and attribute values as text.
struct ReceivedSpan: Sendable {
    let traceID: String
    let spanID: String
    let parentSpanID: String?
    let name: String
    let kind: Int
    /// 0 unset, 1 ok, 2 error.
    let statusCode: Int
    let attributes: [String: String]
    let resource: [String: String]

    init(json: [String: Any], resource: [String: String]) {
        traceID = Self.hex(json["traceId"])
        spanID = Self.hex(json["spanId"])
        let parent = Self.hex(json["parentSpanId"])
        parentSpanID = parent.isEmpty ? nil : parent
        name = json["name"] as? String ?? ""
        kind = json["kind"] as? Int ?? 0
        // Protobuf's JSON leaves out fields at their default: no code is 0 (unset).
        statusCode = (json["status"] as? [String: Any])?["code"] as? Int ?? 0
        attributes = Self.attributes(json["attributes"])
        self.resource = resource
    }

    /// An ID as lowercase hex: protobuf's JSON writes bytes as base64.
    static func hex(_ value: Any?) -> String {
        guard let text = value as? String, let bytes = Data(base64Encoded: text) else { return "" }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// OTLP key/value attributes as `key: text`.
    static func attributes(_ list: Any?) -> [String: String] {
        var result: [String: String] = [:]
        for attribute in list as? [[String: Any]] ?? [] {
            guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any] else { continue }
            if let text = value["stringValue"] as? String ?? value["intValue"] as? String {
                result[key] = text
            } else if let number = value["intValue"] as? Int {
                result[key] = String(number)
            } else if let flag = value["boolValue"] as? Bool {
                result[key] = String(flag)
            } else if let number = value["doubleValue"] as? Double {
                result[key] = String(number)
            }
        }
        return result
    }
}

/// A W3C `traceparent` read back: `00-<trace id>-<span id>-<flags>`.
struct Traceparent: Sendable, Equatable {
    let traceID: String
    let spanID: String
    let isSampled: Bool

    init?(_ header: String) {
        let parts = header.split(separator: "-")
        guard parts.count == 4, parts[0] == "00", parts[1].count == 32, parts[2].count == 16, let flags = UInt8(parts[3], radix: 16) else {
            return nil
        }
        traceID = String(parts[1])
        spanID = String(parts[2])
        isSampled = flags & 1 == 1
    }
}
