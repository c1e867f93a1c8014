import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImageServer
import WebImageTestSupport

/// `webimage serve` with OTEL_* variables exporting through swift-otel to an in-process
/// OTLP/HTTP receiver: the span tree of a request, the `traceparent` its origin gets, an
/// incoming `traceparent` as the parent, the flush on SIGTERM, protobuf by default, the
/// metrics, and a refused protocol.
@Suite("Proxy traces and metrics over OTLP/HTTP", .serialized)
struct ProxyTelemetryTests {
    /// Spans as JSON, which the receiver reads.
    static func environment(_ receiver: OTLPReceiver, scheduleDelay: String = "50") -> [String: String] {
        [
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": scheduleDelay, "OTEL_SERVICE_NAME": "webimage-test",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
        ]
    }

    /// The server span of the request for `path`, once it has arrived.
    static func serverSpan(_ receiver: OTLPReceiver, path: String) async -> ReceivedSpan? {
        _ = await eventually { receiver.spans.contains { $0.kind == 2 && $0.attributes["url.path"] == path } }
        return receiver.spans.first { $0.kind == 2 && $0.attributes["url.path"] == path }
    }

    @Test("A cold variant: a server span with cache lookup, download, decode, transform, encode and store children; the origin gets its traceparent; a memory hit is one span")
    func coldVariantAndMemoryHit() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/photo.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
        let receiver = try await OTLPReceiver.start()
        let proxy = try ServeProcess(environment: Self.environment(receiver))
        defer { proxy.stop() }
        let path = proxyPath("rs:fit:100:100/f:png", source: origin.url("/photo.jpg"))
        #expect(try await proxy.client.get(path).status == 200)

        let server = try #require(await Self.serverSpan(receiver, path: path))
        // Hummingbird names a server span after its route: every proxy path is the catch-all.
        #expect(server.name == "/**")
        #expect(server.parentSpanID == nil)
        #expect(server.attributes["http.request.method"] == "GET")
        #expect(server.attributes["http.response.status_code"] == "200")
        #expect(server.attributes["webimage.cache"] == "miss")
        #expect(server.resource["service.name"] == "webimage-test")
        // Both stores (variant and original) end after the response: wait for them.
        #expect(await eventually { receiver.trace(server.traceID).filter { $0.name == "webimage.store" }.count == 2 })
        let trace = receiver.trace(server.traceID)
        let children = trace.filter { $0.parentSpanID == server.spanID }
        #expect(Set(children.map(\.name)) == [
            "webimage.cache.lookup", "webimage.download", "webimage.decode", "webimage.transform", "webimage.encode", "webimage.store",
        ])
        // The variant and the original are each looked up once.
        #expect(children.filter { $0.name == "webimage.cache.lookup" }.map { $0.attributes["webimage.cache.kind"] ?? "" }.sorted() == ["original", "variant"])
        #expect(children.filter { $0.name == "webimage.cache.lookup" }.allSatisfy { $0.attributes["webimage.cache.hit"] == "false" })
        let download = try #require(children.first { $0.name == "webimage.download" })
        #expect(download.kind == 1)
        // AsyncHTTPClient's client span of the request is the download's child.
        #expect(trace.contains { $0.kind == 3 && $0.parentSpanID == download.spanID })
        #expect(download.attributes["server.address"] == "127.0.0.1")
        #expect(download.attributes["webimage.bytes"] == String(ProxyImages.jpeg.count))
        #expect(download.attributes["http.response.status_code"] == "200")
        let decode = try #require(children.first { $0.name == "webimage.decode" })
        #expect(decode.attributes["webimage.source.format"] == "jpeg")
        #expect(decode.attributes["webimage.source.width"] == "400" && decode.attributes["webimage.source.height"] == "300")
        let transform = try #require(children.first { $0.name == "webimage.transform" })
        #expect(transform.attributes["webimage.width"] == "100" && transform.attributes["webimage.height"] == "75")
        let encode = try #require(children.first { $0.name == "webimage.encode" })
        #expect(encode.attributes["webimage.format"] == "png")
        #expect(trace.allSatisfy { $0.statusCode != 2 })
        // Every span is in the server span's tree.
        let ids = Set(trace.map(\.spanID))
        #expect(trace.allSatisfy { $0.spanID == server.spanID || ids.contains($0.parentSpanID ?? "") })

        // The origin was asked with a traceparent of this trace, naming a span of it.
        let header = origin.lastRequest("/photo.jpg")?.headers.first { $0.0.lowercased() == "traceparent" }?.1
        let sent = try #require(header.flatMap { Traceparent($0) })
        #expect(sent.traceID == server.traceID)
        #expect(ids.contains(sent.spanID))
        #expect(sent.isSampled)

        // The export requests are OTLP/HTTP JSON, as asked.
        #expect(receiver.exports.allSatisfy { request in
            request.method == "POST" && request.headers.contains { $0.0.lowercased() == "content-type" && $0.1 == "application/json" }
        })

        // Again: a memory hit, and nothing but the server span.
        let spansBefore = receiver.spans.count
        #expect(try await proxy.client.get(path).status == 200)
        #expect(await eventually { receiver.spans.count > spansBefore })
        try await Task.sleep(for: .milliseconds(300))
        let hit = try #require(receiver.spans.dropFirst(spansBefore).first { $0.kind == 2 })
        #expect(hit.attributes["webimage.cache"] == "memory")
        #expect(hit.traceID != server.traceID)
        #expect(receiver.trace(hit.traceID).count == 1)
        #expect(origin.requestCount("/photo.jpg") == 1)
        proxy.stop()
        try await receiver.shutdown()
        try await origin.shutdown()
    }

    @Test("An incoming traceparent is the server span's parent, and its tracestate goes on to the origin")
    func incomingTraceparent() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/photo.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
        let receiver = try await OTLPReceiver.start()
        let proxy = try ServeProcess(environment: Self.environment(receiver))
        defer { proxy.stop() }
        let path = proxyPath("rs:fit:50:50", source: origin.url("/photo.jpg"))
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(proxy.port)\(path)")
        request.headers.add(name: "traceparent", value: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        request.headers.add(name: "tracestate", value: "congo=t61rcWkgMzE")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 24)
        #expect(response.status.code == 200)

        let server = try #require(await Self.serverSpan(receiver, path: path))
        #expect(server.traceID == "0af7651916cd43dd8448eb211c80319c")
        #expect(server.parentSpanID == "b7ad6b7169203331")
        let headers = try #require(origin.lastRequest("/photo.jpg")?.headers)
        let sent = try #require(headers.first { $0.0.lowercased() == "traceparent" }.flatMap { Traceparent($0.1) })
        #expect(sent.traceID == "0af7651916cd43dd8448eb211c80319c")
        #expect(headers.first { $0.0.lowercased() == "tracestate" }?.1 == "congo=t61rcWkgMzE")
        proxy.stop()
        try await receiver.shutdown()
        try await origin.shutdown()
    }

    @Test("A source answering 404: the download span has an error status, the server span the 404")
    func failedDownload() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/gone.jpg", .status(404))
        let receiver = try await OTLPReceiver.start()
        let proxy = try ServeProcess(environment: Self.environment(receiver))
        defer { proxy.stop() }
        let path = proxyPath("rs:fit:50:50", source: origin.url("/gone.jpg"))
        #expect(try await proxy.client.get(path).status == 404)
        let server = try #require(await Self.serverSpan(receiver, path: path))
        #expect(server.attributes["http.response.status_code"] == "404")
        #expect(server.statusCode == 0)
        #expect(await eventually { receiver.trace(server.traceID).contains { $0.name == "webimage.download" } })
        let download = try #require(receiver.trace(server.traceID).first { $0.name == "webimage.download" })
        #expect(download.statusCode == 2)
        #expect(download.parentSpanID == server.spanID)
        #expect(!receiver.trace(server.traceID).contains { $0.name == "webimage.decode" })
        proxy.stop()
        try await receiver.shutdown()
        try await origin.shutdown()
    }

    @Test("SIGTERM flushes the spans still queued (the schedule delay is a minute)")
    func flushOnShutdown() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/photo.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
        let receiver = try await OTLPReceiver.start()
        let proxy = try ServeProcess(environment: Self.environment(receiver, scheduleDelay: "60000"))
        let path = proxyPath("rs:fit:80:80", source: origin.url("/photo.jpg"))
        #expect(try await proxy.client.get(path).status == 200)
        try await Task.sleep(for: .milliseconds(200))
        #expect(receiver.spans.isEmpty)
        proxy.stop()
        #expect(proxy.process.terminationStatus == 0)
        #expect(receiver.spans.contains { $0.kind == 2 && $0.attributes["url.path"] == path })
        try await receiver.shutdown()
        try await origin.shutdown()
    }

    @Test("Without a protocol named, spans go as OTLP/HTTP protobuf")
    func protobufByDefault() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/photo.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
        let receiver = try await OTLPReceiver.start()
        let proxy = try ServeProcess(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "50"])
        defer { proxy.stop() }
        let path = proxyPath("rs:fit:30:30", source: origin.url("/photo.jpg"))
        #expect(try await proxy.client.get(path).status == 200)
        // Protobuf carries strings as their UTF-8 bytes: the request's path is in an export.
        let pathBytes = Data(path.utf8)
        #expect(await eventually { receiver.exports.contains { $0.body.range(of: pathBytes) != nil } })
        #expect(receiver.exports.allSatisfy { request in
            request.method == "POST" && request.headers.contains { $0.0.lowercased() == "content-type" && $0.1 == "application/x-protobuf" }
        })
        proxy.stop()
        try await receiver.shutdown()
        try await origin.shutdown()
    }

    @Test("OTEL_METRICS_EXPORTER=otlp sends the proxy's and Hummingbird's metrics, which /metrics serves as well")
    func metricsOverOTLP() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/photo.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
        let receiver = try await OTLPReceiver.start()
        let proxy = try ServeProcess(environment: [
            "OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": receiver.endpoint + "/v1/metrics",
            "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/json", "OTEL_METRIC_EXPORT_INTERVAL": "100",
        ])
        defer { proxy.stop() }
        #expect(try await proxy.client.get(proxyPath("rs:fit:30:30", source: origin.url("/photo.jpg"))).status == 200)
        #expect(await eventually { receiver.metricNames.isSuperset(of: ["hb.requests", "http.server.request.duration", "webimage_cache_misses_total"]) })
        // Traces were not asked for.
        #expect(receiver.exports.isEmpty)
        #expect(try await proxy.metric("webimage_requests_total{status=\"200\"}") >= 1)
        proxy.stop()
        // The exporters are released as their services end: the process exits cleanly.
        #expect(proxy.termination?.reason == .exit)
        #expect(proxy.termination?.status == 0)
        try await receiver.shutdown()
        try await origin.shutdown()
    }

    @Test("A gRPC protocol stops start-up with an error naming the variable")
    func refusedProtocol() throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: try BuiltExecutables.path(of: "webimage"))
        process.arguments = ["serve", "--port", "0"]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
        ]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(text.contains("OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' is not supported"), "\(text)")
    }
}
