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
            // Written when the socket has taken the last byte, not when it is queued.
            let written = promise ?? context.eventLoop.makePromise()
            let deadlines = NIOLoopBound(deadlines, eventLoop: context.eventLoop)
            written.futureResult.whenSuccess { deadlines.value.responseWritten() }
            context.write(data, promise: written)
            return
        }
        context.write(data, promise: promise)
    }
}
