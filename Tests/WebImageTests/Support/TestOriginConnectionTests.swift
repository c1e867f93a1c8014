import Foundation
import NIOCore
import NIOPosix
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

// The test origin's connections: keep-alive, pipelining, counters, many clients, shutdown.
extension TestOriginTests {
    @Test func keepAliveReusesTheConnection() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/a", .text("A"))
        origin.register("/b", .text("B"))
        let client = try await TestOriginRawClient.connect(to: origin)
        for _ in 0..<3 {
            try await client.request("/a")
            #expect(await client.readResponse()?.text == "A")
            try await client.request("/b")
            #expect(await client.readResponse()?.text == "B")
        }
        #expect(!client.isClosed)
        #expect(origin.connectionCount == 1)
        #expect(Set(origin.allRequests.map(\.connectionID)).count == 1)
        #expect(origin.totalRequestCount == 6)
        await client.close()
        try await origin.shutdown()
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let origin = try await TestOrigin.start()
        let gate = TestOriginGate()
        origin.register("/one", .gated(gate, then: .text("one")))
        origin.register("/two", .text("two"))
        origin.register("/three", TestOriginResponse.text("three").chunked(chunkSize: 2))
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.send(
            TestOriginRawClient.requestText("/one") + TestOriginRawClient.requestText("/two")
                + TestOriginRawClient.requestText("/three")
        )
        #expect(await origin.waitUntil { $0.totalRequestCount == 3 })
        #expect(origin.inFlightCount == 3)  // two wait behind the held one
        gate.open()
        #expect(await client.readResponse()?.text == "one")
        #expect(await client.readResponse()?.text == "two")
        #expect(await client.readResponse()?.text == "three")
        #expect(origin.allRequests.map(\.path) == ["/one", "/two", "/three"])
        #expect(origin.maxConcurrentRequests == 3)
        #expect(await origin.waitForIdle())
        await client.close()
        try await origin.shutdown()
    }

    @Test func connectionCloseIsHonoured() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/a", .text("A"))
        origin.register("/closing", TestOriginResponse.text("bye").closingConnection())

        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/a", headers: ["Connection: close"])
        let response = try #require(await client.readResponse())
        #expect(response.text == "A")
        #expect(response.header("Connection") == "close")
        #expect(await client.waitForClose())

        let old = try await TestOriginRawClient.connect(to: origin)
        try await old.request("/a", version: "HTTP/1.0")
        #expect(await old.readResponse()?.header("Connection") == "close")
        #expect(await old.waitForClose())

        let oldKeepAlive = try await TestOriginRawClient.connect(to: origin)
        try await oldKeepAlive.request("/a", headers: ["Connection: keep-alive"], version: "HTTP/1.0")
        #expect(await oldKeepAlive.readResponse()?.header("Connection") == "keep-alive")
        try await oldKeepAlive.request("/a", headers: ["Connection: keep-alive"], version: "HTTP/1.0")
        #expect(await oldKeepAlive.readResponse()?.text == "A")
        #expect(!oldKeepAlive.isClosed)
        await oldKeepAlive.close()

        let third = try await TestOriginRawClient.connect(to: origin)
        try await third.request("/closing")
        let closing = try #require(await third.readResponse())
        #expect(closing.header("Connection") == "close")
        #expect(await third.waitForClose())
        #expect(await origin.waitForIdle())
        #expect(origin.totalAbortedCount == 0)
        try await origin.shutdown()
    }

    @Test func countersConcurrencyAndReset() async throws {
        let origin = try await TestOrigin.start()
        // Stalled requests stay in flight until their clients go, so the peak is exact.
        origin.register("/slow", .stall)
        let clients = try await withThrowingTaskGroup(of: TestOriginRawClient.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    let client = try await TestOriginRawClient.connect(to: origin)
                    try await client.request("/slow")
                    return client
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await origin.waitUntil { $0.inFlightCount == 5 })
        #expect(origin.maxConcurrentRequests == 5)
        #expect(origin.openConnectionCount == 5)
        for client in clients {
            await client.close()
        }
        #expect(await origin.waitForAbort("/slow", count: 5))
        #expect(await origin.waitForIdle())
        #expect(origin.maxConcurrentRequests == 5)
        #expect(origin.requestCount("/slow") == 5)
        #expect(origin.totalRequestCount == 5)
        #expect(origin.totalAbortedCount == 5)
        #expect(origin.completedCount("/slow") == 0)
        #expect(origin.connectionCount == 5)

        origin.resetCounters()
        #expect(origin.maxConcurrentRequests == 0)
        #expect(origin.requestCount("/slow") == 0)
        #expect(origin.totalRequestCount == 0)
        #expect(origin.requests("/slow").isEmpty)
        #expect(origin.lastRequest("/slow") == nil)
        #expect(origin.abortedCount("/slow") == 0)
        #expect(origin.connectionCount == 0)

        // With requests one after another the peak stays 1.
        origin.register("/fast", .text("f"))
        let client = try await TestOriginRawClient.connect(to: origin)
        for _ in 0..<3 {
            try await client.request("/fast")
            #expect(await client.readResponse()?.text == "f")
        }
        #expect(origin.maxConcurrentRequests == 1)
        #expect(origin.lastRequest("/fast")?.ordinal == 3)
        await client.close()
        try await origin.shutdown()
    }

    @Test func manyConcurrentClients() async throws {
        let origin = try await TestOrigin.start()
        let body = originSampleBytes(20_000)
        origin.register("/big.png", .image(body))
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<60 {
                group.addTask {
                    let response = try await originFetch(origin, "/big.png?i=\(index)")
                    return response?.body == body
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 60)
        #expect(results.allSatisfy { $0 })
        #expect(origin.requestCount("/big.png") == 60)
        #expect(await origin.waitForIdle())
        try await origin.shutdown()
    }

    @Test func clientsVanishingAtAnyMomentDoNotHurtTheOrigin() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/stall", .stall)
        origin.register("/stream", TestOriginResponse.image(originSampleBytes(400)).streamed(chunkSize: 8, interval: .milliseconds(5)))
        origin.register("/delay", .delayed(0.05, then: .image(originSampleBytes(100))))
        origin.register("/big", .image(originSampleBytes(2_000_000)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let client = try await TestOriginRawClient.connect(to: origin)
                    let paths = ["/stall", "/stream", "/delay", "/big", "/missing"]
                    switch index % 5 {
                    case 0:
                        break  // connect, then go
                    case 1:
                        try? await client.send("GET /stream HTTP/1.1\r\nHo")  // half a request
                    case 2:
                        try? await client.send("this is not http\r\n\r\n")
                    default:
                        try? await client.request(paths[index % paths.count])
                        try? await client.request(paths[(index + 1) % paths.count])
                    }
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...60)))
                    if index % 2 == 0 {
                        await client.reset()
                    } else {
                        await client.close()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await origin.waitForIdle())
        #expect(await origin.waitUntil { $0.openConnectionCount == 0 })
        // Still serving.
        origin.register("/ok", .text("fine"))
        #expect(try await originFetch(origin, "/ok")?.text == "fine")
        try await origin.shutdown()
    }

    // The time limit is the hang guard: a stalled connection must not hold shutdown up.
    @Test(.timeLimit(.minutes(2))) func shutdownClosesStalledConnectionsPromptly() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/stall", .stall)
        origin.register("/partial", TestOriginResponse.image(originSampleBytes(100)).stalling(afterBodyBytes: 10))
        var clients: [TestOriginRawClient] = []
        for path in ["/stall", "/stall", "/partial"] {
            let client = try await TestOriginRawClient.connect(to: origin)
            try await client.request(path)
            clients.append(client)
        }
        let idle = try await TestOriginRawClient.connect(to: origin)  // connected, no request
        #expect(await origin.waitUntil { $0.inFlightCount == 3 && $0.openConnectionCount == 4 })
        let port = origin.port
        try await origin.shutdown()
        for client in clients + [idle] {
            #expect(await client.waitForClose(timeout: .seconds(5)))
        }
        #expect(origin.inFlightCount == 0)
        #expect(origin.totalAbortedCount == 0)  // cut by the shutdown, not by the client
        try await origin.shutdown()  // a second call is harmless
        await #expect(throws: (any Error).self) {
            _ = try await TestOriginRawClient.connect(port: port)
        }
    }

    @Test func withOriginShutsDown() async throws {
        let port = try await TestOrigin.with { origin async throws -> Int in
            origin.register("/x", .text("x"))
            #expect(try await originFetch(origin, "/x")?.text == "x")
            return origin.port
        }
        await #expect(throws: (any Error).self) {
            _ = try await TestOriginRawClient.connect(port: port)
        }
    }
}
