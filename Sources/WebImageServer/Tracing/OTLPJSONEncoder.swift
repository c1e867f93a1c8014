import Foundation
import Tracing

/// Encodes finished spans as an OTLP `ExportTraceServiceRequest` in the OTLP/JSON mapping:
/// `resourceSpans` → `scopeSpans` → `spans`, IDs as hex, 64-bit integers and times as
/// decimal strings, enums as their numbers.
public struct OTLPJSONEncoder: Sendable {
    /// The instrumentation scope the spans are reported under.
    public static let scopeName = "webimage"

    /// The resource's attributes: `service.name` first.
    let resource: [(key: String, value: String)]

    /// An encoder for spans of the service `serviceName` with further resource attributes.
    public init(serviceName: String, resourceAttributes: [(key: String, value: String)] = []) {
        resource = [(key: "service.name", value: serviceName)] + resourceAttributes.filter { $0.key != "service.name" }
    }

    /// The JSON body of one export request.
    public func encode(_ spans: [FinishedSpan]) -> Data {
        let request: [String: Any] = [
            "resourceSpans": [[
                "resource": ["attributes": resource.map { ["key": $0.key, "value": ["stringValue": $0.value]] }],
                "scopeSpans": [[
                    "scope": ["name": Self.scopeName],
                    "spans": spans.map(Self.span),
                ]],
            ]],
        ]
        // Every value above is a string, number, array or dictionary: serialization cannot fail.
        return (try? JSONSerialization.data(withJSONObject: request, options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    static func span(_ span: FinishedSpan) -> [String: Any] {
        var json: [String: Any] = [
            "traceId": span.identity.traceID,
            "spanId": span.identity.spanID,
            "name": span.name,
            "kind": kindNumber(span.kind),
            "startTimeUnixNano": String(span.startNanoseconds),
            "endTimeUnixNano": String(span.endNanoseconds),
            "attributes": attributes(span.attributes),
            "status": status(span.status),
        ]
        if let parent = span.parentSpanID { json["parentSpanId"] = parent }
        if !span.identity.traceState.isEmpty { json["traceState"] = span.identity.traceState }
        if !span.events.isEmpty {
            json["events"] = span.events.map { event -> [String: Any] in
                ["name": event.name, "timeUnixNano": String(event.nanosecondsSinceEpoch), "attributes": attributes(event.attributes)]
            }
        }
        return json
    }

    /// OTLP's `SpanKind` numbers (0 is unspecified).
    static func kindNumber(_ kind: SpanKind) -> Int {
        switch kind {
        case .internal: 1
        case .server: 2
        case .client: 3
        case .producer: 4
        case .consumer: 5
        }
    }

    /// OTLP's `Status`: code 0 unset, 1 ok, 2 error, with the message of an error.
    static func status(_ status: SpanStatus?) -> [String: Any] {
        guard let status else { return ["code": 0] }
        switch status.code {
        case .ok: return ["code": 1]
        case .error: return status.message.map { ["code": 2, "message": $0] } ?? ["code": 2]
        }
    }

    static func attributes(_ attributes: SpanAttributes) -> [[String: Any]] {
        var list: [[String: Any]] = []
        attributes.forEach { key, value in list.append(["key": key, "value": anyValue(value)]) }
        return list.sorted { ($0["key"] as? String ?? "") < ($1["key"] as? String ?? "") }
    }

    /// OTLP's `AnyValue` for one attribute value.
    static func anyValue(_ attribute: SpanAttribute) -> [String: Any] {
        func array(_ values: [[String: Any]]) -> [String: Any] { ["arrayValue": ["values": values]] }
        switch attribute {
        case .int32(let value): return ["intValue": String(value)]
        case .int64(let value): return ["intValue": String(value)]
        case .double(let value): return ["doubleValue": value]
        case .bool(let value): return ["boolValue": value]
        case .string(let value): return ["stringValue": value]
        case .int32Array(let values): return array(values.map { ["intValue": String($0)] })
        case .int64Array(let values): return array(values.map { ["intValue": String($0)] })
        case .doubleArray(let values): return array(values.map { ["doubleValue": $0] })
        case .boolArray(let values): return array(values.map { ["boolValue": $0] })
        case .stringArray(let values): return array(values.map { ["stringValue": $0] })
        case .stringConvertible(let value): return ["stringValue": value.description]
        case .stringConvertibleArray(let values): return array(values.map { ["stringValue": $0.description] })
        default: return ["stringValue": ""]
        }
    }
}
