import Foundation
import Logging
import Testing
@testable import WebImageServer
import WebImageTestSupport

@Suite("Request logging")
struct RequestLoggingTests {
    @Test("info: Hummingbird's line per request (method, path); debug: where each answer came from, its status and bytes")
    func logsEveryRequest() async throws {
        let store = LogLines()
        var logger = Logger(label: "webimage.test.log") { _ in RecordingLogHandler(store: store) }
        logger.logLevel = .debug
        try await TestProxy.with(logger: logger) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("rs:fit:50:50", source: origin.url("/a.jpg"))
            #expect(try await proxy.get(path, headers: [("Accept", "image/jpeg")]).status == 200)
            #expect(try await proxy.get(path, headers: [("Accept", "image/jpeg")]).status == 200)
            #expect(try await proxy.get("/insecure/rs:what:1/abc").status == 400)
            #expect(try await proxy.get("/health").status == 200)
            let requests = await store.waitForLines("Request", count: 4)
            #expect(requests.map { $0["hb.request.path"]?.description } == [path, path, "/insecure/rs:what:1/abc", "/health"])
            #expect(requests.allSatisfy { $0["hb.request.method"]?.description == "GET" && $0["hb.request.id"] != nil })
            let answers = await store.waitForLines("answered", count: 3)
            #expect(answers.map { $0["cache"]?.description } == ["miss", "memory", "-"])
            #expect(answers.map { $0["status"]?.description } == ["200", "200", "400"])
            #expect(Int(answers.first?["bytes"]?.description ?? "") ?? 0 > 0)
            // Each answer line carries its request's ID.
            #expect(answers.first?["hb.request.id"] == requests.first?["hb.request.id"])
        }
    }

    @Test("above info, no line per request")
    func quietAboveInfo() async throws {
        let store = LogLines()
        var logger = Logger(label: "webimage.test.log") { _ in RecordingLogHandler(store: store) }
        logger.logLevel = .warning
        try await TestProxy.with(logger: logger) { (_, proxy) async throws in
            #expect(try await proxy.get("/health").status == 200)
            #expect(try await proxy.get("/insecure/rs:what:1/abc").status == 400)
        }
        #expect(store.lines.withLock { $0.filter { $0.message == "Request" || $0.message == "answered" } }.isEmpty)
    }
}
