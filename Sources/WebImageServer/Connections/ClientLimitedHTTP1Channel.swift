import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 channel with limits on clients: a cap on connections open at
/// once, and deadlines for a request to arrive and for an idle connection
/// (``ClientDeadlineHandler``), so that slow or idle clients cannot hold every file
/// descriptor.
///
/// Hummingbird's own `availableConnectionsDelegate` stops accepting at its cap, which
/// leaves new clients waiting in the listen backlog; a client past this cap is accepted
/// and closed at once, so that it learns there is no room rather than hanging. Its
/// `idleTimeout` is one duration for both waits and restarts with every request part; the
/// read deadline here runs from a request's first byte to its last however slowly they
/// arrive.
struct ClientLimitedHTTP1Channel: ServerChildChannel {
    /// An accepted connection: served, or refused for want of room.
    enum Connection: ServerChildChannelValue {
        /// Served; `hungUp` completes when the client hangs up (``ClientHangUpHandler``).
        case admitted(HTTP1Channel.Value, hungUp: EventLoopFuture<Void>)
        case refused(any Channel)

        var channel: any Channel {
            switch self {
            case .admitted(let value, _): value.channel
            case .refused(let channel): channel
            }
        }
    }

    /// The HTTP/1.1 channel connections are served by.
    let http1: HTTP1Channel
    let connections: ClientConnections
    let readTimeout: Duration
    /// `nil`: keep-alive off.
    let keepAliveTimeout: Duration?
    let metrics: ServerMetrics

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Connection> {
        guard connections.admit() else {
            metrics.clientRefused()
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(RefusedConnectionHandler())
                return .refused(channel)
            }
        }
        metrics.clientConnected()
        channel.closeFuture.whenComplete { [connections, metrics] _ in
            connections.release()
            metrics.clientDisconnected()
        }
        let deadlines: ClientDeadlineHandler
        let hangUp = ClientHangUpHandler(eventLoop: channel.eventLoop)
        let hungUp = hangUp.futureResult
        do {
            deadlines = ClientDeadlineHandler(
                readTimeout: TimeAmount(readTimeout), keepAliveTimeout: keepAliveTimeout.map { TimeAmount($0) },
                onTimeout: { [metrics] kind in metrics.clientTimedOut(kind) }
            )
            // First in the pipeline, before the HTTP decoder: it sees bytes as they arrive.
            try channel.pipeline.syncOperations.addHandler(deadlines)
            try channel.pipeline.syncOperations.addHandler(hangUp)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        var configuration = http1.configuration
        let extraHandlers = configuration.additionalChannelHandlers
        // Called by the setup below, on this channel's event loop.
        let boundDeadlines = NIOLoopBound(deadlines, eventLoop: channel.eventLoop)
        configuration.additionalChannelHandlers = { [ClientRequestTracker(deadlines: boundDeadlines.value)] + extraHandlers() }
        return HTTP1Channel(responder: http1.responder, configuration: configuration)
            .setup(channel: channel, logger: logger)
            .map { .admitted($0, hungUp: hungUp) }
    }

    func handle(value: Connection, logger: Logger) async {
        switch value {
        case .admitted(let channel, let hungUp):
            // A client that hangs up leaves nobody to answer: the request it was waiting
            // for is cancelled, and with it the work nobody else waits for.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await http1.handle(value: channel, logger: logger) }
                group.addTask { try? await hungUp.get() }
                await group.next()
                group.cancelAll()
            }
        case .refused:
            // Closed by its pipeline as soon as it opened.
            break
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with ``ClientLimitedHTTP1Channel``'s limits on clients.
    static func clientLimitedHTTP1(
        connections: ClientConnections, readTimeout: Duration, keepAliveTimeout: Duration?, metrics: ServerMetrics
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            ClientLimitedHTTP1Channel(
                http1: HTTP1Channel(responder: responder), connections: connections, readTimeout: readTimeout,
                keepAliveTimeout: keepAliveTimeout, metrics: metrics
            )
        }
    }
}
