import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A minimal HTTP/1.1 server on 127.0.0.1 for the loading benchmarks: keep-alive, and a
/// fixed body (with `Content-Length`) for any path. Paths under `/slow/` answer after
/// `slowDelay`, to model an origin's latency. It counts the requests it receives.
public final class HTTPBenchServer: Sendable {
    public let port: Int
    public let bodySize: Int
    private let channel: any Channel
    private let counter: Counter

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Requests received so far (heads parsed).
    public var requestCount: Int { counter.value.load(ordering: .relaxed) }

    /// Base URL, e.g. `http://127.0.0.1:40123`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server on an ephemeral port of 127.0.0.1, on NIO's singleton event loop group.
    public init(bodySize: Int = 100 * 1024, slowDelay: TimeAmount = .milliseconds(50)) throws {
        var bytes = ByteBufferAllocator().buffer(capacity: bodySize)
        var state: UInt64 = 0x5EED_B0D1
        for _ in 0..<bodySize {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            bytes.writeInteger(UInt8(truncatingIfNeeded: state >> 33))
        }
        let body = bytes
        let counter = Counter()
        self.counter = counter
        self.bodySize = bodySize
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        Handler(body: body, counter: counter, slowDelay: slowDelay)
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .wait()
        port = channel.localAddress!.port!
    }

    public func stop() {
        try? channel.close().wait()
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let body: ByteBuffer
        let counter: Counter
        let slowDelay: TimeAmount
        var keepAlive = true
        var slow = false

        init(body: ByteBuffer, counter: Counter, slowDelay: TimeAmount) {
            self.body = body
            self.counter = counter
            self.slowDelay = slowDelay
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                counter.value.add(1, ordering: .relaxed)
                keepAlive = head.isKeepAlive
                slow = head.uri.hasPrefix("/slow/")
            case .body:
                break
            case .end:
                if slow {
                    let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                    let keepAlive = self.keepAlive
                    context.eventLoop.scheduleTask(in: slowDelay) {
                        let (handler, context) = bound.value
                        handler.respond(context: context, keepAlive: keepAlive)
                    }
                } else {
                    respond(context: context, keepAlive: keepAlive)
                }
            }
        }

        func respond(context: ChannelHandlerContext, keepAlive: Bool) {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "image/png")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            if keepAlive {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                    bound.value.close(promise: nil)
                }
            }
        }
    }
}
