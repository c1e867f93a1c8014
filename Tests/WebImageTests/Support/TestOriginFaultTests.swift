import Foundation
import NIOCore
import NIOPosix
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

// The test origin's faults: delays, stalls, drops, resets, lying lengths and slow streams.
extension TestOriginTests {
    @Test func delayedResponse() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/slow", .delayed(5.0, then: .text("late")))
        let client = try await TestOriginRawClient.connect(to: origin)
        let start = ContinuousClock.now
        try await client.request("/slow")
        #expect(await origin.waitForRequests("/slow"))
        // It was in flight while delayed: the peak, which a slow machine cannot miss.
        #expect(origin.maxConcurrentRequests == 1)
        let response = try #require(await client.readResponse())
        #expect(originMilliseconds(since: start) >= 4990)
        #expect(response.text == "late")
        #expect(await origin.waitForIdle())
        #expect(origin.abortedCount("/slow") == 0)
        await client.close()
        try await origin.shutdown()
    }

    @Test func abortDuringDelayIsCounted() async throws {
        let origin = try await TestOrigin.start()
        // A delay no run reaches: the close is an event the origin must see first, however
        // slowly the machine runs (5 s passed under the thread sanitizer on 2 cores).
        origin.register("/slow", TestOriginResponse.text("late").delayed(by: 600))
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/slow")
        #expect(await origin.waitForRequests("/slow"))
        await client.close()
        #expect(await origin.waitForAbort("/slow"))
        #expect(origin.abortedCount("/slow") == 1)
        #expect(await origin.waitForIdle())
        #expect(origin.completedCount("/slow") == 0)
        try await origin.shutdown()
    }

    @Test func stallNeverAnswersAndSeesTheClientClose() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/stall", .stall)
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/stall")
        #expect(await origin.waitForRequests("/stall"))
        try await Task.sleep(for: .milliseconds(300))
        #expect(client.bytes.isEmpty)
        #expect(!client.isClosed)
        #expect(origin.inFlightCount == 1)
        #expect(origin.abortedCount("/stall") == 0)
        await client.close()
        #expect(await origin.waitForAbort("/stall"))
        #expect(await origin.waitForIdle())
        #expect(await origin.waitUntil { $0.openConnectionCount == 0 })
        try await origin.shutdown()
    }

    @Test func stallAfterHeadersAndPartialBody() async throws {
        let origin = try await TestOrigin.start()
        let body = originSampleBytes(1000)
        origin.register("/partial", .stall(afterBodyBytes: 100, of: .image(body)))
        origin.register("/headonly", TestOriginResponse.image(body).stalling(afterBodyBytes: 0))
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/partial")
        #expect(await client.waitUntil(timeout: .seconds(2)) { received in
            guard let (_, _, start) = TestOriginRawResponse.parseHead(received.bytes) else { return false }
            return received.bytes.count - start >= 100
        })
        try await Task.sleep(for: .milliseconds(200))
        let bytes = client.bytes
        let (status, headers, start) = try #require(TestOriginRawResponse.parseHead(bytes))
        #expect(status == 200)
        #expect(headers.first { $0.0 == "Content-Length" }?.1 == "1000")
        #expect(Data(bytes[start...]) == body.prefix(100))
        #expect(!client.isClosed)
        #expect(origin.inFlightCount == 1)
        await client.close()
        #expect(await origin.waitForAbort("/partial"))

        let second = try await TestOriginRawClient.connect(to: origin)
        try await second.request("/headonly")
        #expect(await second.waitUntil(timeout: .seconds(2)) { TestOriginRawResponse.parseHead($0.bytes) != nil })
        try await Task.sleep(for: .milliseconds(100))
        let (_, _, headEnd) = try #require(TestOriginRawResponse.parseHead(second.bytes))
        #expect(second.bytes.count == headEnd)
        await second.close()
        #expect(await origin.waitForAbort("/headonly"))
        #expect(await origin.waitForIdle())
        try await origin.shutdown()
    }

    @Test func gatesHoldAResponseUntilOpened() async throws {
        let origin = try await TestOrigin.start()
        let body = originSampleBytes(1000)
        let before = TestOriginGate(), middle = TestOriginGate()
        origin.register("/gated", .gated(before, then: .image(body)))
        origin.register("/paused", TestOriginResponse.image(body).streamed(chunkSize: 300, interval: .zero).pausing(afterBodyBytes: 450, until: middle))

        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/gated")
        #expect(await before.waitForArrivals(1))
        #expect(client.bytes.isEmpty, "nothing is sent before the gate opens")
        #expect(origin.inFlightCount == 1)
        before.open()
        let gated = await client.readResponse()
        #expect(gated?.status == 200)
        #expect(gated?.body == body)

        let second = try await TestOriginRawClient.connect(to: origin)
        try await second.request("/paused")
        #expect(await middle.waitForArrivals(1))
        // The origin wrote the head and 450 bytes before it reached the gate; wait until they arrived.
        #expect(await second.waitUntil(timeout: .seconds(2)) { received in
            guard let (_, _, start) = TestOriginRawResponse.parseHead(received.bytes) else { return false }
            return received.bytes.count - start >= 450
        })
        let (_, _, start) = try #require(TestOriginRawResponse.parseHead(second.bytes))
        #expect(Data(second.bytes[start...]) == body.prefix(450), "exactly the bytes before the pause")
        middle.open()
        let paused = await second.readResponse()
        #expect(paused?.body == body)
        #expect(middle.arrivals == 1)
        await client.close()
        await second.close()
        #expect(await origin.waitForIdle())
        try await origin.shutdown()
    }

    @Test func dropClosesWithoutResponse() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/drop", .drop)
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/drop")
        #expect(await client.waitForClose())
        #expect(client.bytes.isEmpty)
        #expect(origin.requestCount("/drop") == 1)
        #expect(await origin.waitForIdle())
        #expect(origin.abortedCount("/drop") == 0)
        try await origin.shutdown()
    }

    @Test func dropAfterHeadersAndSomeBodyBytes() async throws {
        let origin = try await TestOrigin.start()
        let body = originSampleBytes(500)
        origin.register("/cut", .drop(afterBodyBytes: 123, of: .image(body, contentType: "image/jpeg")))
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/cut")
        #expect(await client.waitForClose())
        #expect(await client.readResponse() == nil)
        let bytes = client.bytes
        let (status, headers, start) = try #require(TestOriginRawResponse.parseHead(bytes))
        #expect(status == 200)
        #expect(headers.first { $0.0 == "Content-Length" }?.1 == "500")
        #expect(Data(bytes[start...]) == body.prefix(123))
        #expect(await origin.waitForIdle())
        #expect(origin.abortedCount("/cut") == 0)
        try await origin.shutdown()
    }

    @Test func resetClosesWithRST() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/reset", .reset)
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/reset")
        #expect(await client.waitForClose())
        #expect(client.bytes.isEmpty)
        #expect(client.error != nil)  // ECONNRESET, not a clean end of stream
        #expect(await origin.waitForIdle())
        try await origin.shutdown()
    }

    @Test func lyingContentLengthLongerThanBody() async throws {
        let origin = try await TestOrigin.start()
        let body = originSampleBytes(40)
        origin.register("/lie", .lyingContentLength(declared: 100, body: body, contentType: "image/png"))
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/lie")
        #expect(await client.waitForClose())
        #expect(await client.readResponse() == nil)
        let bytes = client.bytes
        let (_, headers, start) = try #require(TestOriginRawResponse.parseHead(bytes))
        #expect(headers.first { $0.0 == "Content-Length" }?.1 == "100")
        #expect(headers.first { $0.0 == "Connection" }?.1 == "close")
        #expect(Data(bytes[start...]) == body)
        #expect(await origin.waitForIdle())
        try await origin.shutdown()
    }

    @Test func lyingContentLengthShorterThanBody() async throws {
        let origin = try await TestOrigin.start()
        let body = originSampleBytes(40)
        origin.register("/lie", TestOriginResponse.image(body).declaringContentLength(10))
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/lie")
        #expect(await client.waitForClose())
        let response = try #require(await client.readResponse())
        #expect(response.header("Content-Length") == "10")
        #expect(response.header("Connection") == "close")
        #expect(response.body == body.prefix(10))
        #expect(client.bytes == Array(body.dropFirst(10)))  // the extra bytes were sent too
        #expect(await origin.waitForIdle())
        try await origin.shutdown()
    }

    @Test func slowStreamingWithContentLength() async throws {
        let origin = try await TestOrigin.start()
        let body = originSampleBytes(50)
        // The gate holds the body after its first piece, so "still streaming" is seen however
        // slowly this machine runs; the pieces after it still come 100 ms apart.
        let gate = TestOriginGate()
        origin.register(
            "/stream",
            TestOriginResponse.image(body).streamed(chunkSize: 10, interval: .milliseconds(100)).pausing(afterBodyBytes: 10, until: gate)
        )
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/stream")
        #expect(await client.waitUntil(timeout: .seconds(30)) { received in
            guard let (_, _, bodyStart) = TestOriginRawResponse.parseHead(received.bytes) else { return false }
            return received.bytes.count > bodyStart
        })
        let (_, headers, bodyStart) = try #require(TestOriginRawResponse.parseHead(client.bytes))
        #expect(headers.first { $0.0 == "Content-Length" }?.1 == "50")
        #expect(client.bytes.count - bodyStart == 10)  // still streaming
        #expect(origin.inFlightCount == 1)
        let start = ContinuousClock.now
        gate.open()
        let response = try #require(await client.readResponse())
        #expect(response.body == body)
        #expect(originMilliseconds(since: start) >= 4 * 100 - 10)
        #expect(await origin.waitForIdle())
        #expect(origin.completedCount("/stream") == 1)
        await client.close()
        try await origin.shutdown()
    }

    @Test func slowStreamingChunked() async throws {
        let origin = try await TestOrigin.start()
        let body = originSampleBytes(25)
        origin.register("/chunks", .image(body))
        origin.register(
            "/chunks",
            TestOriginResponse.image(body).streamed(chunkSize: 10, interval: .milliseconds(50), encoding: .chunked)
        )
        origin.register("/fastchunks", TestOriginResponse.text("abcdefghij").chunked(chunkSize: 4))
        let client = try await TestOriginRawClient.connect(to: origin)
        let start = ContinuousClock.now
        try await client.request("/chunks")
        let response = try #require(await client.readResponse())
        #expect(originMilliseconds(since: start) >= 2 * 50 - 10)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.header("Content-Length") == nil)
        #expect(response.chunkSizes == [10, 10, 5])
        #expect(response.body == body)
        try await client.request("/fastchunks")
        let fast = try #require(await client.readResponse())
        #expect(fast.chunkSizes == [4, 4, 2])
        #expect(fast.text == "abcdefghij")
        #expect(origin.connectionCount == 1)
        await client.close()
        try await origin.shutdown()
    }

    @Test func abortDuringSlowStreamIsCounted() async throws {
        let origin = try await TestOrigin.start()
        // 100 KB at 500 bytes a second: the client hangs up long before the end, even on a
        // machine so loaded (the thread sanitizer beside other suites) that it reads late.
        origin.register("/stream", TestOriginResponse.image(originSampleBytes(100_000)).streamed(chunkSize: 10, interval: .milliseconds(20)))
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/stream")
        #expect(await client.waitForBytes(200))
        await client.close()
        #expect(await origin.waitForAbort("/stream"))
        #expect(await origin.waitForIdle())
        #expect(origin.completedCount("/stream") == 0)
        try await origin.shutdown()
    }
}
