import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 channel with limits on clients: a cap on the connections one
/// address may hold (``ClientConnections``), and deadlines for a request to arrive, for an
/// idle connection and for a response to be written (``ClientDeadlineHandler``), so that
/// slow, idle or non-reading clients cannot hold every file descriptor.
///
/// The cap on all connections together is Hummingbird's `availableConnectionsDelegate`
/// (``ProxyServer``): at the cap the listening socket is not read, and new clients wait in
/// its backlog until a connection closes, as imgproxy's listener makes them wait. A client
/// past its address's cap is accepted and closed at once: a waiting client would hold the
/// backlog for everyone. Hummingbird's own `idleTimeout` is one duration for every wait and
/// restarts with every request part; the read deadline here runs from a request's first
/// byte to its last however slowly they arrive.
struct ClientLimitedHTTP1Channel: ServerChildChannel {
    /// An accepted connection: served, or refused for want of room at its address.
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
    let limits: ClientLimits
    let metrics: ServerMetrics

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Connection> {
        if connections.isFirstConnection(), let listener = channel.parent {
            // NIO accepts up to four connections per read of the listening socket, past
            // the point where the cap stops reading it: one at a time keeps the cap exact.
            listener.setOption(ChannelOptions.maxMessagesPerRead, value: 1).whenFailure { _ in }
        }
        guard let key = connections.admit(channel.remoteAddress) else {
            metrics.clientRefused()
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(RefusedConnectionHandler())
                return .refused(channel)
            }
        }
        metrics.clientConnected()
        channel.closeFuture.whenComplete { [connections, metrics] _ in
            connections.release(key)
            metrics.clientDisconnected()
        }
        let deadlines: ClientDeadlineHandler
        let hangUp = ClientHangUpHandler(eventLoop: channel.eventLoop)
        let hungUp = hangUp.futureResult
        do {
            if let size = limits.sendBufferSize {
                try channel.syncOptions?.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(size))
            }
            deadlines = ClientDeadlineHandler(
                readTimeout: TimeAmount(limits.readTimeout), writeTimeout: TimeAmount(limits.writeTimeout),
                keepAliveTimeout: limits.keepAliveTimeout.map { TimeAmount($0) },
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

/// The deadlines of a client connection.
struct ClientLimits: Sendable {
    /// The longest a request may take to arrive, head and body.
    var readTimeout: Duration
    /// The longest a response may take to be written.
    var writeTimeout: Duration
    /// The longest an idle connection waits for its next request; `nil`: keep-alive off.
    var keepAliveTimeout: Duration?
    /// The kernel's send buffer of a connection, in bytes; `nil`: the system's.
    var sendBufferSize: Int?
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with ``ClientLimitedHTTP1Channel``'s limits on clients.
    static func clientLimitedHTTP1(connections: ClientConnections, limits: ClientLimits, metrics: ServerMetrics) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            ClientLimitedHTTP1Channel(
                http1: HTTP1Channel(responder: responder), connections: connections, limits: limits, metrics: metrics
            )
        }
    }
}
