import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Tells the connection's ``ClientDeadlineHandler`` where requests and responses begin and
/// end, from its place after the HTTP decoder. With keep-alive off it marks each request
/// and response `Connection: close`, so that Hummingbird closes the connection after the
/// response.
final class ClientRequestTracker: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let deadlines: ClientDeadlineHandler
    /// Responses whose last part was written while the channel held more than its high
    /// watermark of unsent bytes.
    private var endsAwaitingWritability = 0

    init(deadlines: ClientDeadlineHandler) {
        self.deadlines = deadlines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            deadlines.requestStarted()
            if !deadlines.keepsAlive {
                head.headerFields[.connection] = "close"
                context.fireChannelRead(wrapInboundOut(.head(head)))
                return
            }
        case .body:
            break
        case .end:
            deadlines.requestRead()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            deadlines.responseStarted()
            if !deadlines.keepsAlive {
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
        case .body:
            break
        case .end:
            context.write(data, promise: promise)
            // Written once no more than the channel's high watermark of it waits for the
            // socket: at once for most responses, else when the channel is writable again.
            if context.channel.isWritable {
                deadlines.responseWritten()
            } else {
                endsAwaitingWritability += 1
            }
            return
        }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            while endsAwaitingWritability > 0 {
                endsAwaitingWritability -= 1
                deadlines.responseWritten()
            }
        }
        context.fireChannelWritabilityChanged()
    }
}
