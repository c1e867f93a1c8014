import Foundation
import NIOCore
import NIOPosix
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

// Tests of the in-process test origin (Support/TestOrigin*.swift), driven by a raw TCP client so
// that every byte the origin sends (or does not send) is visible.

// MARK: - Raw client

/// One HTTP response as parsed off the wire by `TestOriginRawClient`.
struct TestOriginRawResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: Data
    /// The sizes of the chunks of a chunked body, in order (empty for other framings).
    var chunkSizes: [Int]

    func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.0.caseInsensitiveCompare(name) == .orderedSame }.map(\.1)
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// Parses the head of a response at the start of `bytes`: (status, headers, index after the head).
    static func parseHead(_ bytes: [UInt8]) -> (Int, [(String, String)], Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4 else { return nil }
        var end: Int?
        for index in 0...(bytes.count - 4) where Array(bytes[index..<index + 4]) == separator {
            end = index
            break
        }
        guard let end else { return nil }
        let lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
        }
        return (status, headers, end + 4)
    }

    /// Parses one complete response at the start of `bytes`; returns it and the bytes it used.
    static func parse(_ bytes: [UInt8], method: String, closed: Bool) -> (TestOriginRawResponse, Int)? {
        guard let (status, headers, bodyStart) = parseHead(bytes) else { return nil }
        var response = TestOriginRawResponse(status: status, headers: headers, body: Data(), chunkSizes: [])
        if method == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304 {
            return (response, bodyStart)
        }
        if let encoding = response.header("Transfer-Encoding"), encoding.lowercased().contains("chunked") {
            var position = bodyStart
            while true {
                guard let lineEnd = findCRLF(bytes, from: position) else { return nil }
                let sizeText = String(decoding: bytes[position..<lineEnd], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else { return nil }
                position = lineEnd + 2
                if size == 0 {
                    guard bytes.count >= position + 2 else { return nil }
                    return (response, position + 2)
                }
                guard bytes.count >= position + size + 2 else { return nil }
                response.body.append(contentsOf: bytes[position..<position + size])
                response.chunkSizes.append(size)
                position += size + 2
            }
        }
        if let lengthText = response.header("Content-Length"), let length = Int(lengthText) {
            guard bytes.count >= bodyStart + length else { return nil }
            response.body = Data(bytes[bodyStart..<bodyStart + length])
            return (response, bodyStart + length)
        }
        guard closed else { return nil }
        response.body = Data(bytes[bodyStart...])
        return (response, bytes.count)
    }

    private static func findCRLF(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }
}

/// A tiny TCP client on NIO: sends raw bytes, collects what comes back, notices the close.
final class TestOriginRawClient: Sendable {
    struct Received {
        var bytes: [UInt8] = []
        var closed = false
        var error: (any Error)?
    }

    final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let box: TestOriginRawClient.Box

        init(box: TestOriginRawClient.Box) {
            self.box = box
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            box.state.withLock { $0.bytes.append(contentsOf: buffer.readableBytesView) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            box.state.withLock { $0.closed = true }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            box.state.withLock { $0.error = error }
            context.close(promise: nil)
        }
    }

    final class Box: Sendable {
        let state = Locked(Received())
    }

    let channel: any Channel
    private let box: Box

    private init(channel: any Channel, box: Box) {
        self.channel = channel
        self.box = box
    }

    static func connect(to origin: TestOrigin) async throws -> TestOriginRawClient {
        try await connect(port: origin.port)
    }

    static func connect(port: Int) async throws -> TestOriginRawClient {
        let box = Box()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            // Generous: a loopback connect is instant, but a loaded machine (or the thread
            // sanitizer running beside another suite) may not accept it at once.
            .connectTimeout(.seconds(20))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(box: box))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return TestOriginRawClient(channel: channel, box: box)
    }

    func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Sends a GET (or `method`) for `target` with HTTP/1.1 framing.
    func request(
        _ target: String, method: String = "GET", headers: [String] = [], body: String? = nil,
        version: String = "HTTP/1.1"
    ) async throws {
        try await send(Self.requestText(target, method: method, headers: headers, body: body, version: version))
    }

    static func requestText(
        _ target: String, method: String = "GET", headers: [String] = [], body: String? = nil,
        version: String = "HTTP/1.1"
    ) -> String {
        var text = "\(method) \(target) \(version)\r\nHost: 127.0.0.1\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n"
        if let body { text += body }
        return text
    }

    /// Waits for one complete response and removes its bytes from the buffer; nil on timeout or
    /// when the connection closed before the response was complete.
    func readResponse(method: String = "GET", timeout: Duration = .seconds(30)) async -> TestOriginRawResponse? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (parsed, closed): (TestOriginRawResponse?, Bool) = box.state.withLock { state in
                guard let (response, used) = TestOriginRawResponse.parse(
                    state.bytes, method: method, closed: state.closed
                ) else { return (nil, state.closed) }
                state.bytes.removeFirst(used)
                return (response, state.closed)
            }
            if let parsed { return parsed }
            if closed || ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits until the connection is closed; false on timeout.
    func waitForClose(timeout: Duration = .seconds(3)) async -> Bool {
        await waitUntil(timeout: timeout) { $0.closed }
    }

    /// Waits until at least `count` unread bytes arrived; false on timeout.
    func waitForBytes(_ count: Int, timeout: Duration = .seconds(3)) async -> Bool {
        await waitUntil(timeout: timeout) { $0.bytes.count >= count }
    }

    func waitUntil(timeout: Duration, _ condition: (Received) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if box.state.withLock({ condition($0) }) { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The bytes received and not yet consumed by `readResponse`.
    var bytes: [UInt8] { box.state.withLock { $0.bytes } }
    var isClosed: Bool { box.state.withLock { $0.closed } }
    var error: (any Error)? { box.state.withLock { $0.error } }

    func close() async {
        try? await channel.close()
    }

    /// Closes with a TCP reset instead of a FIN.
    func reset() async {
        if let provider = channel as? SocketOptionProvider {
            _ = try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }
}

/// One request over a new connection; returns the response.
private func originFetch(
    _ origin: TestOrigin, _ target: String, method: String = "GET", headers: [String] = []
) async throws -> TestOriginRawResponse? {
    let client = try await TestOriginRawClient.connect(to: origin)
    defer { Task { await client.close() } }
    try await client.request(target, method: method, headers: headers)
    return await client.readResponse(method: method)
}

private func originSampleBytes(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
}

private func originMilliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}

// MARK: - Tests

@Suite("TestOrigin")
struct TestOriginTests {
    @Test func urlsPointAtLoopbackEphemeralPort() async throws {
        let origin = try await TestOrigin.start()
        #expect(origin.port > 0)
        #expect(origin.baseURL.absoluteString == "http://127.0.0.1:\(origin.port)")
        #expect(origin.url("/a.png?v=2").absoluteString == "http://127.0.0.1:\(origin.port)/a.png?v=2")
        #expect(origin.url("b.png").absoluteString == "http://127.0.0.1:\(origin.port)/b.png")
        try await origin.shutdown()
    }

    @Test func servesImageAndRecordsRequest() async throws {
        let origin = try await TestOrigin.start()
        let png = originSampleBytes(3000)
        origin.register("/a.png", .image(png, contentType: "image/png"))

        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/a.png?size=large&x=1", headers: ["X-Custom: abc", "Accept: image/*", "X-Dup: 1", "X-Dup: 2"])
        let response = try #require(await client.readResponse())
        #expect(response.status == 200)
        #expect(response.header("content-type") == "image/png")
        #expect(response.header("Content-Length") == "3000")
        #expect(response.body == png)

        #expect(origin.requestCount("/a.png") == 1)
        #expect(origin.totalRequestCount == 1)
        let request = try #require(origin.lastRequest("/a.png"))
        #expect(request.method == "GET")
        #expect(request.uri == "/a.png?size=large&x=1")
        #expect(request.path == "/a.png")
        #expect(request.query == "size=large&x=1")
        #expect(request.queryValue("size") == "large")
        #expect(request.header("x-custom") == "abc")
        #expect(request.header("ACCEPT") == "image/*")
        #expect(request.headerValues("x-dup") == ["1", "2"])
        #expect(request.header("X-Missing") == nil)
        #expect(request.httpVersion == "HTTP/1.1")
        #expect(request.body.isEmpty)
        #expect(request.ordinal == 1)
        #expect(await origin.waitForIdle())
        #expect(origin.completedCount("/a.png") == 1)
        await client.close()
        try await origin.shutdown()
    }

    @Test func recordsRequestBodies() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/upload", .status(201))
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/upload", method: "POST", body: "hello body")
        #expect(await client.readResponse()?.status == 201)
        // A chunked request body too.
        try await client.send("PUT /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        #expect(await client.readResponse()?.status == 201)
        let requests = origin.requests("/upload")
        #expect(requests.map(\.method) == ["POST", "PUT"])
        #expect(requests.map { String(decoding: $0.body, as: UTF8.self) } == ["hello body", "abcde"])
        #expect(requests.map(\.ordinal) == [1, 2])
        await client.close()
        try await origin.shutdown()
    }

    @Test func unregisteredPathIs404AndRoutesCanBeReplaced() async throws {
        let origin = try await TestOrigin.start()
        let missing = try #require(try await originFetch(origin, "/nothing?x=1"))
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(missing.text.contains("/nothing"))
        #expect(origin.requestCount("/nothing") == 1)

        origin.register("/r", .text("first"))
        #expect(try await originFetch(origin, "/r")?.text == "first")
        origin.register("/r", .text("second"))
        #expect(try await originFetch(origin, "/r")?.text == "second")
        origin.unregister("/r")
        #expect(try await originFetch(origin, "/r")?.status == 404)
        try await origin.shutdown()
    }

    @Test func handlerRoutesSeeTheRequestAndMatchWithoutQuery() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/etag") { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return .notModified(headers: [("ETag", "\"v1\"")])
            }
            return .image(Data([1, 2, 3]), headers: [("ETag", "\"v1\"")])
                .withHeader("X-Ordinal", String(request.ordinal))
                .withHeader("X-Query", request.query ?? "-")
        }
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/etag?token=abc")
        let first = try #require(await client.readResponse())
        #expect(first.status == 200)
        #expect(first.header("ETag") == "\"v1\"")
        #expect(first.header("X-Ordinal") == "1")
        #expect(first.header("X-Query") == "token=abc")
        try await client.request("/etag?token=def", headers: ["If-None-Match: \"v1\""])
        let second = try #require(await client.readResponse())
        #expect(second.status == 304)
        #expect(second.body.isEmpty)
        #expect(second.header("Content-Length") == nil)
        #expect(origin.requestCount("/etag") == 2)
        #expect(origin.requests("/etag").map(\.query) == ["token=abc", "token=def"])
        await client.close()
        try await origin.shutdown()
    }

    @Test func pathArgumentsIgnoreQueryAndScheme() async throws {
        let origin = try await TestOrigin.start()
        origin.register("n.png?ignored=1", .image(Data([7])))
        #expect(try await originFetch(origin, "/n.png?x=1")?.status == 200)
        #expect(origin.requestCount("/n.png") == 1)
        #expect(origin.requestCount("n.png?y=2") == 1)
        #expect(origin.requestCount(origin.url("/n.png?z").absoluteString) == 1)
        #expect(origin.lastRequest("/n.png")?.uri == "/n.png?x=1")
        #expect(TestOriginRequest.split("http://h:1/p/q?a=b").path == "/p/q")
        #expect(TestOriginRequest.split("http://h:1?a=b") == ("/", "a=b"))
        #expect(TestOriginRequest.split("/").path == "/")
        try await origin.shutdown()
    }

    @Test func anyStatusContentTypeAndRepeatedHeaders() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/json", TestOriginResponse(status: 201, body: Data("{}".utf8), contentType: "application/json"))
        origin.register("/html", .html("<html>hi</html>"))
        origin.register("/gone", .status(410))
        origin.register("/teapot", .text("short and stout", status: 418))
        origin.register("/odd", .status(599))
        origin.register("/empty", .status(204))
        origin.register(
            "/cookies",
            .image(Data([9]), contentType: "image/webp")
                .withHeader("Set-Cookie", "a=1; Path=/")
                .withHeader("Set-Cookie", "b=2; Path=/")
                .withHeaders([("Cache-Control", "max-age=60"), ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")])
                .withHeader("ETag", "W/\"x\"")
        )

        let client = try await TestOriginRawClient.connect(to: origin)
        let expectations: [(String, Int, String?)] = [
            ("/json", 201, "application/json"), ("/html", 200, "text/html; charset=utf-8"), ("/gone", 410, nil),
            ("/teapot", 418, "text/plain; charset=utf-8"), ("/odd", 599, nil), ("/empty", 204, nil),
        ]
        for (path, status, contentType) in expectations {
            try await client.request(path)
            let response = try #require(await client.readResponse())
            #expect(response.status == status, "\(path)")
            #expect(response.header("Content-Type") == contentType, "\(path)")
        }
        try await client.request("/cookies")
        let cookies = try #require(await client.readResponse())
        #expect(cookies.headerValues("set-cookie") == ["a=1; Path=/", "b=2; Path=/"])
        #expect(cookies.header("Cache-Control") == "max-age=60")
        #expect(cookies.header("Last-Modified") == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(cookies.header("ETag") == "W/\"x\"")
        #expect(cookies.header("Content-Type") == "image/webp")
        #expect(cookies.body == Data([9]))
        // HEAD: the head only, and the connection stays usable.
        try await client.request("/cookies", method: "HEAD")
        let head = try #require(await client.readResponse(method: "HEAD"))
        #expect(head.header("Content-Length") == "1")
        try await client.request("/json")
        #expect(await client.readResponse()?.text == "{}")
        #expect(Set(origin.allRequests.map(\.connectionID)).count == 1)
        await client.close()
        try await origin.shutdown()
    }

    @Test func redirects() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/target.png", .image(Data([1])))
        for status in [301, 302, 303, 307, 308] {
            origin.register("/rel\(status)", .redirect(to: "/target.png", status: status))
            origin.register("/abs\(status)", .redirect(to: origin.url("/target.png").absoluteString, status: status))
        }
        origin.register("/loop", .redirect(to: "/loop"))
        let client = try await TestOriginRawClient.connect(to: origin)
        for status in [301, 302, 303, 307, 308] {
            try await client.request("/rel\(status)")
            let relative = try #require(await client.readResponse())
            #expect(relative.status == status)
            #expect(relative.header("Location") == "/target.png")
            try await client.request("/abs\(status)")
            let absolute = try #require(await client.readResponse())
            #expect(absolute.status == status)
            #expect(absolute.header("Location") == "http://127.0.0.1:\(origin.port)/target.png")
        }
        try await client.request("/loop")
        #expect(await client.readResponse()?.header("Location") == "/loop")
        await client.close()
        try await origin.shutdown()
    }

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
