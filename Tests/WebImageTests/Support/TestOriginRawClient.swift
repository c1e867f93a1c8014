import Foundation
import NIOCore
import NIOPosix
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

// A raw TCP client of the in-process test origin, so that every byte the origin sends (or
// does not send) is visible to its tests.

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
func originFetch(
    _ origin: TestOrigin, _ target: String, method: String = "GET", headers: [String] = []
) async throws -> TestOriginRawResponse? {
    let client = try await TestOriginRawClient.connect(to: origin)
    defer { Task { await client.close() } }
    try await client.request(target, method: method, headers: headers)
    return await client.readResponse(method: method)
}

func originSampleBytes(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
}

func originMilliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}
