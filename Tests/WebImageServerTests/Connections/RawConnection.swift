import NIOCore
import NIOPosix
import WebImageLocking

/// A TCP connection to 127.0.0.1 that writes bytes as given — half a request head, one
/// byte at a time, or whole requests — and reads what comes back, for the tests of slow and
/// idle clients.
struct RawConnection: Sendable {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// Connects to `port` on 127.0.0.1, from `source` (another loopback address) when given.
    static func open(port: Int, from source: String? = nil) async throws -> RawConnection {
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel = try await bootstrap
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return RawConnection(channel: channel)
    }

    /// Runs `body` with the connection's reader and writer, then closes the connection.
    func use<Result: Sendable>(
        _ body: (inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws -> Result
    ) async throws -> Result {
        try await channel.executeThenClose { inbound, outbound in
            var reader = inbound.makeAsyncIterator()
            return try await body(&reader, outbound)
        }
    }
}

/// A client that sends one request and never reads a byte of the answer: its receive
/// buffer is a few kilobytes, and nothing is read from the socket.
struct NonReadingClient: Sendable {
    let channel: any Channel

    /// Connects to `port` on 127.0.0.1 and sends `request`.
    static func open(port: Int, sending request: String) async throws -> NonReadingClient {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.socketOption(.so_rcvbuf), value: 4096)
            .channelOption(ChannelOptions.autoRead, value: false)
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: request))
        return NonReadingClient(channel: channel)
    }

    func close() async {
        try? await channel.close()
    }
}

extension NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator {
    /// Reads until the server closes the connection (or resets it); the bytes read.
    mutating func readUntilClosed() async -> Int {
        var count = 0
        do {
            while let buffer = try await next() { count += buffer.readableBytes }
        } catch {
            // A reset is a close too.
        }
        return count
    }

    /// Reads one response to `GET /health` (`ok\n`, its length given): its head and body as
    /// text, or `nil` when the connection closed first.
    mutating func readHealthResponse() async throws -> String? {
        var text = ""
        while !text.hasSuffix("\r\n\r\nok\n") {
            guard let buffer = try await next() else { return nil }
            text += String(buffer: buffer)
        }
        return text
    }
}

/// A gate tasks wait at until it is opened, once.
final class TaskGate: Sendable {
    private let state = InlineLocked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Waits until ``open()`` (at once if it was called).
    func wait() async {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if resume { continuation.resume() }
        }
    }

    /// Whether ``open()`` was called.
    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Lets every waiting task go on, and every later one pass.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
