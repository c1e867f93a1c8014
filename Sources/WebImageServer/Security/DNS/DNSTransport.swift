import NIOCore
import NIOPosix

/// Queries to one name server: over UDP from a socket of their own (a fresh port and
/// random IDs for every round, answers only from that server), and over TCP for an answer
/// the server truncated. Nothing blocks a thread: the waits are the event loop's.
enum DNSTransport {
    /// After one record type has brought addresses, how long the other may still take
    /// (the resolution delay of RFC 8305), so that a server that drops `AAAA` questions
    /// delays no lookup by its whole timeout.
    static let resolutionDelay = TimeAmount.milliseconds(50)

    /// Asks `server` for each of `types` of `name` at once, and waits until each is
    /// answered or `deadline` passes: the responses that came, by type. A truncated
    /// response is asked for again over TCP, within the same deadline.
    static func ask(
        _ name: String, types: [DNSMessage.RecordType], server: SocketAddress, deadline: NIODeadline, group: any EventLoopGroup
    ) async -> [DNSMessage.RecordType: DNSMessage.Response] {
        var questions: [UInt16: DNSMessage.RecordType] = [:]
        while questions.count < types.count {
            let id = UInt16.random(in: .min ... .max)
            if questions[id] == nil { questions[id] = types[questions.count] }
        }
        let loop = group.next()
        let promise = loop.makePromise(of: [DNSMessage.RecordType: DNSMessage.Response].self)
        let local = server.protocol == .inet6 ? "::" : "0.0.0.0"
        let channel: any Channel
        do {
            channel = try await DatagramBootstrap(group: loop)
                .channelInitializer { [questions] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            DNSDatagramHandler(name: name, questions: questions, server: server, deadline: deadline, promise: promise)
                        )
                    }
                }
                .bind(host: local, port: 0).get()
        } catch {
            promise.succeed([:])
            return [:]
        }
        for (id, type) in questions {
            channel.write(AddressedEnvelope(remoteAddress: server, data: DNSMessage.query(id: id, name: name, type: type)), promise: nil)
        }
        channel.flush()
        var responses = (try? await promise.futureResult.get()) ?? [:]
        channel.close(promise: nil)
        for (type, response) in responses where response.truncated {
            if let full = await askOverTCP(name, type: type, server: server, deadline: deadline, group: group) {
                responses[type] = full
            }
        }
        return responses
    }

    /// One question over TCP, the message framed by its length (RFC 7766).
    static func askOverTCP(
        _ name: String, type: DNSMessage.RecordType, server: SocketAddress, deadline: NIODeadline, group: any EventLoopGroup
    ) async -> DNSMessage.Response? {
        let id = UInt16.random(in: .min ... .max)
        let loop = group.next()
        let promise = loop.makePromise(of: DNSMessage.Response?.self)
        let timeout = deadline - .now()
        guard timeout > .zero else { return nil }
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            DNSStreamHandler(name: name, type: type, id: id, deadline: deadline, promise: promise)
                        )
                    }
                }
                .connect(to: server).get()
        } catch {
            promise.succeed(nil)
            return nil
        }
        let query = DNSMessage.query(id: id, name: name, type: type)
        var framed = ByteBuffer()
        framed.writeInteger(UInt16(query.readableBytes))
        framed.writeImmutableBuffer(query)
        channel.writeAndFlush(framed, promise: nil)
        let response = (try? await promise.futureResult.get()) ?? nil
        channel.close(promise: nil)
        return response
    }
}

/// Collects the answers to a round of UDP questions, and ends the round when all are in,
/// when the resolution delay after a first address has passed, or at the deadline.
private final class DNSDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let name: String
    private let questions: [UInt16: DNSMessage.RecordType]
    private let server: SocketAddress
    private let deadline: NIODeadline
    private let promise: EventLoopPromise<[DNSMessage.RecordType: DNSMessage.Response]>
    private var responses: [DNSMessage.RecordType: DNSMessage.Response] = [:]
    private var timer: Scheduled<Void>?
    private var delayed = false

    init(
        name: String, questions: [UInt16: DNSMessage.RecordType], server: SocketAddress, deadline: NIODeadline,
        promise: EventLoopPromise<[DNSMessage.RecordType: DNSMessage.Response]>
    ) {
        self.name = name
        self.questions = questions
        self.server = server
        self.deadline = deadline
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) { loopBound.value.finish() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        // Only the server asked may answer, and only a question asked.
        guard envelope.remoteAddress == server, envelope.data.readableBytes >= 2,
              let id = envelope.data.getInteger(at: envelope.data.readerIndex, as: UInt16.self),
              let type = questions[id], responses[type] == nil,
              let response = DNSMessage.response(envelope.data, id: id, name: name, type: type)
        else { return }
        responses[type] = response
        if responses.count == questions.count {
            finish()
        } else if !response.addresses.isEmpty, !delayed {
            delayed = true
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let end = min(deadline, .now() + DNSTransport.resolutionDelay)
            timer?.cancel()
            timer = context.eventLoop.scheduleTask(deadline: end) { loopBound.value.finish() }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // An ICMP "port unreachable" for a datagram: this server will not answer.
        finish()
    }

    private func finish() {
        timer?.cancel()
        timer = nil
        promise.succeed(responses)
    }
}

/// Reads one length-framed response over TCP.
private final class DNSStreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let name: String
    private let type: DNSMessage.RecordType
    private let id: UInt16
    private let deadline: NIODeadline
    private let promise: EventLoopPromise<DNSMessage.Response?>
    private var received = ByteBuffer()
    private var timer: Scheduled<Void>?

    init(name: String, type: DNSMessage.RecordType, id: UInt16, deadline: NIODeadline, promise: EventLoopPromise<DNSMessage.Response?>) {
        self.name = name
        self.type = type
        self.id = id
        self.deadline = deadline
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) { loopBound.value.finish(nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        guard let length = received.getInteger(at: received.readerIndex, as: UInt16.self),
              received.readableBytes >= 2 + Int(length),
              let message = received.getSlice(at: received.readerIndex + 2, length: Int(length))
        else { return }
        finish(DNSMessage.response(message, id: id, name: name, type: type))
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(nil)
        context.close(promise: nil)
    }

    private func finish(_ response: DNSMessage.Response?) {
        timer?.cancel()
        timer = nil
        promise.succeed(response)
    }
}
