import Foundation
import Testing
import Tracing
@testable import WebImageServer

/// The OTLP/JSON mapping of an export request (opentelemetry-proto's
/// `ExportTraceServiceRequest`, JSON encoding rules of the OTLP specification).
@Suite("OTLP JSON encoding")
struct OTLPJSONEncoderTests {
    static let identity = SpanIdentity(traceID: "5b8efff798038103d269b633813fc60c", spanID: "eee19b7ec3c1b174", isSampled: true, traceState: "vendor=x")

    func decoded(_ spans: [FinishedSpan], resource: [(key: String, value: String)] = []) throws -> [String: Any] {
        let data = OTLPJSONEncoder(serviceName: "images", resourceAttributes: resource).encode(spans)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("resourceSpans → scopeSpans → spans, with the resource's service.name first")
    func structure() throws {
        let span = FinishedSpan(identity: Self.identity, parentSpanID: nil, name: "GET", kind: .server, startNanoseconds: 1, endNanoseconds: 2)
        let json = try decoded([span], resource: [(key: "deployment.environment", value: "test")])
        let resourceSpans = try #require(json["resourceSpans"] as? [[String: Any]])
        #expect(resourceSpans.count == 1)
        let resource = try #require(resourceSpans[0]["resource"] as? [String: Any])
        let attributes = try #require(resource["attributes"] as? [[String: Any]])
        #expect(attributes.map { $0["key"] as? String } == ["service.name", "deployment.environment"])
        #expect((attributes[0]["value"] as? [String: String])?["stringValue"] == "images")
        let scopeSpans = try #require(resourceSpans[0]["scopeSpans"] as? [[String: Any]])
        #expect((scopeSpans[0]["scope"] as? [String: String])?["name"] == "webimage")
        #expect((scopeSpans[0]["spans"] as? [[String: Any]])?.count == 1)
    }

    @Test("A span: hex IDs, kind and status numbers, times as decimal strings, typed attribute values")
    func span() throws {
        var attributes = SpanAttributes()
        attributes["http.request.method"] = "GET"
        attributes["http.response.status_code"] = 200
        attributes["ratio"] = 0.5
        attributes["hit"] = true
        attributes["big"] = Int64(9_007_199_254_740_993)
        let span = FinishedSpan(
            identity: Self.identity, parentSpanID: "53995c3f42cd8ad8", name: "webimage.decode", kind: .internal,
            startNanoseconds: 1_544_712_660_000_000_000, endNanoseconds: 1_544_712_661_000_000_000,
            attributes: attributes, status: SpanStatus(code: .error, message: "bad image data")
        )
        let json = try decoded([span])
        let resourceSpans = try #require(json["resourceSpans"] as? [[String: Any]])
        let scopeSpans = try #require(resourceSpans[0]["scopeSpans"] as? [[String: Any]])
        let encoded = try #require((scopeSpans[0]["spans"] as? [[String: Any]])?.first)
        #expect(encoded["traceId"] as? String == "5b8efff798038103d269b633813fc60c")
        #expect(encoded["spanId"] as? String == "eee19b7ec3c1b174")
        #expect(encoded["parentSpanId"] as? String == "53995c3f42cd8ad8")
        #expect(encoded["traceState"] as? String == "vendor=x")
        #expect(encoded["name"] as? String == "webimage.decode")
        #expect(encoded["kind"] as? Int == 1)
        #expect(encoded["startTimeUnixNano"] as? String == "1544712660000000000")
        #expect(encoded["endTimeUnixNano"] as? String == "1544712661000000000")
        let status = try #require(encoded["status"] as? [String: Any])
        #expect(status["code"] as? Int == 2)
        #expect(status["message"] as? String == "bad image data")
        let values = try #require(encoded["attributes"] as? [[String: Any]])
        var byKey: [String: [String: Any]] = [:]
        for attribute in values { byKey[attribute["key"] as! String] = attribute["value"] as? [String: Any] }
        #expect(byKey["http.request.method"]?["stringValue"] as? String == "GET")
        #expect(byKey["http.response.status_code"]?["intValue"] as? String == "200")
        #expect(byKey["big"]?["intValue"] as? String == "9007199254740993")
        #expect(byKey["ratio"]?["doubleValue"] as? Double == 0.5)
        #expect(byKey["hit"]?["boolValue"] as? Bool == true)
    }

    @Test("Kinds and statuses map to OTLP's numbers; a root span has no parentSpanId")
    func enums() throws {
        let kinds: [(SpanKind, Int)] = [(.internal, 1), (.server, 2), (.client, 3), (.producer, 4), (.consumer, 5)]
        for (kind, number) in kinds { #expect(OTLPJSONEncoder.kindNumber(kind) == number) }
        #expect(OTLPJSONEncoder.status(nil)["code"] as? Int == 0)
        #expect(OTLPJSONEncoder.status(SpanStatus(code: .ok))["code"] as? Int == 1)
        let root = OTLPJSONEncoder.span(FinishedSpan(identity: Self.identity, parentSpanID: nil, name: "GET", kind: .server, startNanoseconds: 0, endNanoseconds: 0))
        #expect(root["parentSpanId"] == nil)
    }
}
