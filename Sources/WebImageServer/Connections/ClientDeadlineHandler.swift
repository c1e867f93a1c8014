import NIOCore

/// Closes a client connection that keeps the server waiting: one that takes longer than
/// the read timeout to send a request (head and body, from the moment the connection opens
/// or the request's first byte arrives, however slowly the bytes trickle in), that sits
/// idle between requests longer than the keep-alive timeout, or that takes longer than the
/// write timeout to take a response (from its first byte written until its last has left
/// for the socket): a client that never reads gives back its connection and the response
/// it holds.
///
/// It sits first in the pipeline, where it sees the bytes as they arrive; the
/// ``ClientRequestTracker`` after the HTTP decoder tells it where requests and responses
/// begin and end. While a response is being made no deadline runs: the request timeout
/// bounds that.
final class ClientDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// What the connection is doing.
    private enum Phase {
        /// Receiving a request: it must be read by the deadline.
        case reading
        /// Every request received has been read; a response is being made.
        case answering
        /// A response is being written: it must have left by the deadline.
        case writing
        /// Between requests: the next one must start by the deadline.
        case idle
    }

    private let readTimeout: TimeAmount
    private let writeTimeout: TimeAmount
    /// `nil`: keep-alive is off, and a connection lives for one request.
    private let keepAliveTimeout: TimeAmount?
    private let onTimeout: @Sendable (ClientTimeoutKind) -> Void
    private var phase = Phase.reading
    private var deadline = NIODeadline.distantFuture
    /// Requests whose head was read and whose response has not been written.
    private var unanswered = 0
    /// The timer, and when it fires: it is rescheduled only when a deadline moves earlier
    /// (a deadline moving later is found when it fires), so a request costs no timer of its own.
    private var timer: Scheduled<Void>?
    private var timerDeadline = NIODeadline.distantFuture
    private var context: ChannelHandlerContext?

    /// - Parameters:
    ///   - readTimeout: the longest a request may take to arrive.
    ///   - writeTimeout: the longest a response may take to be written.
    ///   - keepAliveTimeout: the longest a connection may wait for its next request; `nil`
    ///     when each connection serves one request.
    ///   - onTimeout: called when a deadline closes the connection.
    init(
        readTimeout: TimeAmount, writeTimeout: TimeAmount, keepAliveTimeout: TimeAmount?,
        onTimeout: @escaping @Sendable (ClientTimeoutKind) -> Void
    ) {
        self.readTimeout = readTimeout
        self.writeTimeout = writeTimeout
        self.keepAliveTimeout = keepAliveTimeout
        self.onTimeout = onTimeout
    }

    /// Whether connections are kept open between requests.
    var keepsAlive: Bool { keepAliveTimeout != nil }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { start() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if phase == .idle {
            // The next request's first byte: it has the read timeout from now.
            phase = .reading
            schedule(.now() + readTimeout)
        }
        context.fireChannelRead(data)
    }

    /// The head of a request was decoded.
    func requestStarted() {
        unanswered += 1
    }

    /// The last part of a request was decoded: no deadline while it is answered (a response
    /// being written keeps its own).
    func requestRead() {
        if phase != .writing { phase = .answering }
    }

    /// The first part of a response is being written: it has the write timeout from now.
    func responseStarted() {
        guard phase == .answering else { return }
        phase = .writing
        schedule(.now() + writeTimeout)
    }

    /// The last part of a response has been handed to the socket, all but at most the
    /// channel's high watermark (64 KiB) of it.
    func responseWritten() {
        unanswered -= 1
        guard unanswered == 0 else {
            // A pipelined request's response is still to be made.
            if phase == .writing { phase = .answering }
            return
        }
        guard phase == .answering || phase == .writing else { return }
        phase = .idle
        // Without keep-alive the server closes its side after the response; the client gets
        // the read timeout to close its own.
        schedule(.now() + (keepAliveTimeout ?? readTimeout))
    }

    /// The connection's first deadline: its first request must arrive within the read timeout.
    private func start() {
        guard timer == nil, deadline == .distantFuture else { return }
        phase = .reading
        schedule(.now() + readTimeout)
    }

    private func schedule(_ deadline: NIODeadline) {
        self.deadline = deadline
        guard let context else { return }
        if timer != nil, timerDeadline <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in fire() }
    }

    private func fire() {
        timer = nil
        timerDeadline = .distantFuture
        guard let context else { return }
        let kind: ClientTimeoutKind
        switch phase {
        case .answering: return
        case .reading: kind = .readRequest
        case .writing: kind = .writeResponse
        case .idle: kind = .keepAlive
        }
        if NIODeadline.now() < deadline {
            schedule(deadline)
            return
        }
        onTimeout(kind)
        context.close(promise: nil)
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = .distantFuture
    }
}
