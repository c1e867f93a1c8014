import Foundation
import NIOCore
import Testing
@testable import WebImageServer
import WebImageLocking
import WebImageTestSupport

/// Slow and idle clients against `webimage serve` in a process of its own (its file
/// descriptors are counted): the read timeout, the keep-alive timeout and the cap on
/// client connections. Every wait is on an event (a connection closing, a response
/// arriving); the short timeouts only make the events come soon.
@Suite("Slow and idle clients", .serialized)
struct ClientLimitsTests {
    static let healthRequest = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test("500 connections with unfinished request heads are each closed by the read timeout; requests are served meanwhile")
    func unfinishedHeads() async throws {
        // 15 s, not 1: a /health request's connection is held to the same timeout from its
        // opening, and with 500 connections arriving at once under the thread sanitizer on
        // 2 cores the proxy can take more than 5 s to read its first request.
        let proxy = try ServeProcess(["--read-request-timeout", "15"])
        defer { proxy.stop() }
        let held = 500
        let slowDone = TaskGate()
        let served = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { slowDone.open() }
                try await withThrowingTaskGroup(of: Int.self) { slow in
                    for _ in 0..<held {
                        slow.addTask {
                            let connection = try await RawConnection.open(port: proxy.port)
                            return try await connection.use { reader, writer in
                                // The server may have given up already when this is written.
                                try? await writer.write(ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
                                return await reader.readUntilClosed()
                            }
                        }
                    }
                    var closed = 0
                    for try await bytes in slow {
                        #expect(bytes == 0)
                        closed += 1
                    }
                    #expect(closed == held)
                }
            }
            group.addTask {
                repeat {
                    let status = try await proxy.client.get("/health").status
                    #expect(status == 200)
                    served.withLock { $0 += 1 }
                    // Paced, so that the probe does not spin both processes for the 15 s.
                    try await Task.sleep(for: .milliseconds(50))
                } while !slowDone.isOpen
            }
            try await group.waitForAll()
        }
        #expect(served.withLock { $0 } >= 1)
        #expect(try await proxy.metric("webimage_client_timeouts_total{kind=\"read_request\"}") == Double(held))
        #expect(try await proxy.metric("webimage_client_connections_refused_total") == 0)
    }

    @Test("a request head trickling in a byte at a time is cut off by the read timeout")
    func tricklingHead() async throws {
        let proxy = try ServeProcess(["--read-request-timeout", "1"])
        defer { proxy.stop() }
        let connection = try await RawConnection.open(port: proxy.port)
        let sent = try await connection.use { reader, writer in
            let closed = TaskGate()
            // An endless header line, a byte every 100 ms until the server closes the
            // connection: at most a minute of it.
            let trickle = Task { () -> Int in
                let bytes = Array("GET /health HTTP/1.1\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 600)
                var sent = 0
                while sent < bytes.count, !closed.isOpen {
                    do {
                        try await writer.write(ByteBuffer(bytes: bytes[sent..<sent + 1]))
                        try await Task.sleep(for: .milliseconds(100))
                    } catch {
                        break
                    }
                    sent += 1
                }
                return sent
            }
            _ = await reader.readUntilClosed()
            closed.open()
            return await trickle.value
        }
        #expect(sent < 600 + 29, "the server kept reading a trickle")
        #expect(try await proxy.metric("webimage_client_timeouts_total{kind=\"read_request\"}") == 1)
    }

    /// One `/health` request on a connection of its own: the response's head, and the bytes
    /// that arrive after it until the server closes the connection.
    static func healthThenClose(port: Int) async throws -> (response: String?, after: Int) {
        let connection = try await RawConnection.open(port: port)
        return try await connection.use { reader, writer in
            try await writer.write(ByteBuffer(string: healthRequest))
            let response = try await reader.readHealthResponse()
            return (response, await reader.readUntilClosed())
        }
    }

    @Test("an idle kept-alive connection is closed by the keep-alive timeout; with 0, each response closes its connection")
    func keepAlive() async throws {
        do {
            let proxy = try ServeProcess(["--keep-alive-timeout", "1"])
            defer { proxy.stop() }
            let (response, after) = try await Self.healthThenClose(port: proxy.port)
            #expect(response?.hasPrefix("HTTP/1.1 200") == true)
            #expect(response?.lowercased().contains("connection: close") == false)
            #expect(after == 0)
            #expect(try await proxy.metric("webimage_client_timeouts_total{kind=\"keep_alive\"}") == 1)
        }
        do {
            let proxy = try ServeProcess(["--keep-alive-timeout", "0"])
            defer { proxy.stop() }
            let (response, after) = try await Self.healthThenClose(port: proxy.port)
            #expect(response?.hasPrefix("HTTP/1.1 200") == true)
            #expect(response?.lowercased().contains("connection: close") == true)
            #expect(after == 0)
            // Ordinary clients are served one request per connection.
            #expect(try await proxy.client.get("/health").status == 200)
            #expect(try await proxy.client.get("/health").status == 200)
        }
    }

    @Test("past --max-clients a connection waits, unread, until one closes: none is refused, the connections open are served on")
    func clientCapMakesConnectionsWait() async throws {
        let cap = 20
        let waiting = 10
        let proxy = try ServeProcess(["--max-clients", String(cap), "--read-request-timeout", "600", "--keep-alive-timeout", "600"])
        defer { proxy.stop() }
        let baseline = proxy.openFileDescriptors()
        let firstAnswers = Locked(0)
        let waitingAnswers = Locked(0)
        let release = TaskGate()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<cap {
                group.addTask {
                    let connection = try await RawConnection.open(port: proxy.port)
                    return try await connection.use { reader, writer in
                        try await writer.write(ByteBuffer(string: Self.healthRequest))
                        guard try await reader.readHealthResponse() != nil else { return false }
                        firstAnswers.withLock { $0 += 1 }
                        await release.wait()
                        try await writer.write(ByteBuffer(string: Self.healthRequest))
                        return try await reader.readHealthResponse()?.hasPrefix("HTTP/1.1 200") == true
                    }
                }
            }
            #expect(await eventually(timeout: .seconds(120)) { firstAnswers.withLock { $0 } == cap })
            let withHeld = proxy.openFileDescriptors()
            #expect(withHeld >= baseline + cap)
            // Past the cap: connected (the listening socket's backlog holds them), not accepted.
            for _ in 0..<waiting {
                group.addTask {
                    let connection = try await RawConnection.open(port: proxy.port)
                    return try await connection.use { reader, writer in
                        try await writer.write(ByteBuffer(string: Self.healthRequest))
                        let answered = try await reader.readHealthResponse()?.hasPrefix("HTTP/1.1 200") == true
                        if answered { waitingAnswers.withLock { $0 += 1 } }
                        return answered
                    }
                }
            }
            #expect(proxy.openFileDescriptors() <= withHeld, "a connection past the cap was accepted")
            #expect(waitingAnswers.withLock { $0 } == 0)
            // The held connections are served on, then close: the waiting ones are served.
            release.open()
            var answered = 0
            for try await ok in group where ok { answered += 1 }
            #expect(answered == cap + waiting)
        }
        #expect(try await proxy.metric("webimage_client_connections_refused_total") == 0)
    }

    @Test("past --max-clients-per-address a connection from that address is closed at once; another address is served")
    func perAddressCap() async throws {
        let cap = 5
        let proxy = try ServeProcess(["--max-clients-per-address", String(cap), "--read-request-timeout", "600", "--keep-alive-timeout", "600"])
        defer { proxy.stop() }
        let held = Locked(0)
        let release = TaskGate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<cap {
                group.addTask {
                    let connection = try await RawConnection.open(port: proxy.port, from: "127.0.0.2")
                    try await connection.use { reader, writer in
                        try await writer.write(ByteBuffer(string: Self.healthRequest))
                        if try await reader.readHealthResponse() != nil { held.withLock { $0 += 1 } }
                        await release.wait()
                    }
                }
            }
            #expect(await eventually(timeout: .seconds(120)) { held.withLock { $0 } == cap })
            let refused = try await RawConnection.open(port: proxy.port, from: "127.0.0.2")
            let bytes = try await refused.use { reader, writer in
                try? await writer.write(ByteBuffer(string: Self.healthRequest))
                return await reader.readUntilClosed()
            }
            #expect(bytes == 0)
            // Another client address has room of its own.
            let other = try await RawConnection.open(port: proxy.port)
            let response = try await other.use { reader, writer in
                try await writer.write(ByteBuffer(string: Self.healthRequest))
                return try await reader.readHealthResponse()
            }
            #expect(response?.hasPrefix("HTTP/1.1 200") == true)
            release.open()
            try await group.waitForAll()
        }
        #expect(try await proxy.metric("webimage_client_connections_refused_total") == 1)
    }
}
