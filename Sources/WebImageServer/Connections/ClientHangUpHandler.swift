import NIOCore

/// Tells when the client of a connection has hung up: its side of the connection closed
/// (the server allows half-closed connections, so a client's close arrives as the end of
/// its input while the connection stays open for writing), or the connection closed.
/// Nobody is left to read an answer then, and the request being answered is cancelled, as
/// Go's server cancels a request's context when its client goes away.
final class ClientHangUpHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let hungUp: EventLoopPromise<Void>

    /// Completes when the client hangs up.
    var futureResult: EventLoopFuture<Void> { hungUp.futureResult }

    init(eventLoop: any EventLoop) {
        hungUp = eventLoop.makePromise()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event { hungUp.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        hungUp.succeed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // Removed with its pipeline: the connection is gone.
        hungUp.succeed()
    }
}
