import Foundation
import WebImageTestSupport

/// An OTLP/HTTP receiver on 127.0.0.1 for the tracing tests: a ``TestOrigin`` answering
/// POSTs to `/v1/traces` with `{}` and keeping their JSON bodies, decoded to spans.
final class OTLPReceiver: Sendable {
    let origin: TestOrigin

    private init(origin: TestOrigin) {
        self.origin = origin
    }

    static func start() async throws -> OTLPReceiver {
        let origin = try await TestOrigin.start()
        origin.register("/v1/traces", .text("{}", contentType: "application/json"))
        return OTLPReceiver(origin: origin)
    }

    /// What `OTEL_EXPORTER_OTLP_ENDPOINT` is set to.
    var endpoint: String { origin.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) }

    /// The export requests received.
    var exports: [TestOriginRequest] { origin.requests("/v1/traces") }

    /// Every span received so far.
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

    /// The spans of one trace.
    func trace(_ traceID: String) -> [ReceivedSpan] { spans.filter { $0.traceID == traceID } }

    func shutdown() async throws { try await origin.shutdown() }
}

/// One span as the receiver got it, its attribute values as text.
struct ReceivedSpan: Sendable {
    let traceID: String
    let spanID: String
    let parentSpanID: String?
    let name: String
    let kind: Int
    let statusCode: Int
    let attributes: [String: String]
    let resource: [String: String]
    let startNanoseconds: String
    let endNanoseconds: String

    init(json: [String: Any], resource: [String: String]) {
        traceID = json["traceId"] as? String ?? ""
        spanID = json["spanId"] as? String ?? ""
        parentSpanID = json["parentSpanId"] as? String
        name = json["name"] as? String ?? ""
        kind = json["kind"] as? Int ?? 0
        statusCode = (json["status"] as? [String: Any])?["code"] as? Int ?? -1
        attributes = Self.attributes(json["attributes"])
        self.resource = resource
        startNanoseconds = json["startTimeUnixNano"] as? String ?? ""
        endNanoseconds = json["endTimeUnixNano"] as? String ?? ""
    }

    /// OTLP key/value attributes as `key: text`.
    static func attributes(_ list: Any?) -> [String: String] {
        var result: [String: String] = [:]
        for attribute in list as? [[String: Any]] ?? [] {
            guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any] else { continue }
            if let text = value["stringValue"] as? String ?? value["intValue"] as? String {
                result[key] = text
            } else if let flag = value["boolValue"] as? Bool {
                result[key] = String(flag)
            } else if let number = value["doubleValue"] as? Double {
                result[key] = String(number)
            }
        }
        return result
    }
}
