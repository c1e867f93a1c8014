import Foundation
import Logging
import Testing
import WebImage
@testable import WebImageServer
import WebImageLocking
import WebImageTestSupport

/// Log lines kept by ``RecordingLogHandler``: each line's message and metadata.
final class LogLines: Sendable {
    let lines = InlineLocked<[(message: String, metadata: Logger.Metadata)]>([])
}

/// A log handler that keeps every line in a ``LogLines``.
struct RecordingLogHandler: LogHandler {
    let store: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.lines.withLock { $0.append((event.message.description, metadata.merging(event.metadata ?? [:]) { $1 })) }
    }
}

@Suite("Request log and metrics middleware")
struct RequestLogMiddlewareTests {
    @Test("one line per request with method, path, status, cache, bytes and duration")
    func logsEveryRequest() async throws {
        let store = LogLines()
        let logger = Logger(label: "webimage.test.log") { _ in RecordingLogHandler(store: store) }
        try await LiveProxy.with(logger: logger) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("rs:fit:50:50", source: origin.url("/a.jpg"))
            #expect(try await proxy.get(path, headers: [("Accept", "image/jpeg")]).status == 200)
            #expect(try await proxy.get(path, headers: [("Accept", "image/jpeg")]).status == 200)
            #expect(try await proxy.get("/health").status == 200)
            let requests = await waitForLines(store, count: 3)
            #expect(requests.map { $0["cache"]?.description } == ["miss", "memory", "-"])
            #expect(requests.map { $0["status"]?.description } == ["200", "200", "200"])
            #expect(requests.last?["path"]?.description == "/health")
            #expect(requests.first?["method"]?.description == "GET")
            #expect(Int(requests.first?["bytes"]?.description ?? "") ?? 0 > 0)
            #expect(requests.allSatisfy { $0["duration_ms"] != nil })
            #expect(try await proxy.metric("webimage_requests_total{status=\"200\"}") == 3)
        }
    }

    /// The metadata of the `request` lines, once `count` have been logged.
    func waitForLines(_ store: LogLines, count: Int) async -> [Logger.Metadata] {
        var requests: [Logger.Metadata] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            requests = store.lines.withLock { $0.filter { $0.message == "request" }.map(\.metadata) }
            if requests.count >= count { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return requests
    }
}
