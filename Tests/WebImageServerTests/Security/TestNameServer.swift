import NIOCore
import NIOPosix
import WebImageLocking

/// A DNS server on 127.0.0.1 for the resolver's tests: it reads every query, counts it by
/// name, and answers as its table says — an address, no such name, only when a test lets
/// it, or never (a server that reads and never replies).
final class TestNameServer: Sendable {
    /// What the server does with the questions for a name.
    enum Policy: Sendable {
        /// `A` gets this IPv4 address; `AAAA` an empty answer.
        case address([UInt8])
        /// No such name.
        case noSuchName
        /// Answers `address` once ``release(_:)`` is called for the name.
        case held([UInt8])
        /// Never answers.
        case silent
    }

    let channel: any Channel
    let address: SocketAddress
    private let state: Locked<State>

    private struct State {
        var policies: [String: Policy]
        var queries: [String: Int] = [:]
        var held: [String: [(AddressedEnvelope<ByteBuffer>, UInt16)]] = [:]
        var released: Set<String> = []
    }

    /// Starts a server; `fallback` is the policy of names not in `policies`.
    static func start(_ policies: [String: Policy], fallback: Policy = .silent) async throws -> TestNameServer {
        let state = Locked(State(policies: policies))
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(state: state, fallback: fallback))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestNameServer(channel: channel, state: state)
    }

    private init(channel: any Channel, state: Locked<State>) {
        self.channel = channel
        self.address = channel.localAddress!
        self.state = state
    }

    /// Queries received for `name`, every type counted.
    func queries(for name: String) -> Int { state.withLock { $0.queries[name, default: 0] } }

    /// Queries received for every name.
    var totalQueries: Int { state.withLock { $0.queries.values.reduce(0, +) } }

    /// Answers the held queries for `name`, and those that come later.
    func release(_ name: String) {
        let (held, policy) = state.withLock { state in
            state.released.insert(name)
            defer { state.held[name] = nil }
            return (state.held[name] ?? [], state.policies[name])
        }
        guard case .held(let bytes) = policy else { return }
        for (envelope, type) in held {
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: Self.reply(to: envelope.data, type: type, code: 0, address: bytes)), promise: nil)
        }
    }

    func stop() async {
        try? await channel.close()
    }

    /// A response to `query`: its header and question, and an `A` record when `type` is
    /// `A` and an address is given.
    static func reply(to query: ByteBuffer, type: UInt16, code: UInt16, address: [UInt8]?) -> ByteBuffer {
        var query = query
        let id = query.readInteger(as: UInt16.self) ?? 0
        query.moveReaderIndex(forwardBy: 10)
        let question = query.readSlice(length: query.readableBytes) ?? ByteBuffer()
        let answers = type == 1 && address != nil ? 1 : 0
        var out = ByteBuffer()
        out.writeInteger(id)
        out.writeInteger(UInt16(0x8180) | code)
        out.writeInteger(UInt16(1))
        out.writeInteger(UInt16(answers))
        out.writeInteger(UInt16(0))
        out.writeInteger(UInt16(0))
        out.writeImmutableBuffer(question)
        if answers == 1, let address {
            out.writeInteger(UInt16(0xC00C))  // the name of the question
            out.writeInteger(UInt16(1))
            out.writeInteger(UInt16(1))
            out.writeInteger(UInt32(60))
            out.writeInteger(UInt16(4))
            out.writeBytes(address)
        }
        return out
    }

    /// The name and type a query asks for.
    static func question(of query: ByteBuffer) -> (name: String, type: UInt16)? {
        var reader = query
        guard reader.readableBytes >= 12 else { return nil }
        reader.moveReaderIndex(forwardBy: 12)
        var labels: [String] = []
        while let length = reader.readInteger(as: UInt8.self), length > 0 {
            guard let bytes = reader.readBytes(length: Int(length)) else { return nil }
            labels.append(String(decoding: bytes, as: UTF8.self))
        }
        guard let type = reader.readInteger(as: UInt16.self) else { return nil }
        return (labels.joined(separator: ".").lowercased(), type)
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>
        let state: Locked<State>
        let fallback: Policy

        init(state: Locked<State>, fallback: Policy) {
            self.state = state
            self.fallback = fallback
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            guard envelope.data.readableBytes >= 12, let (name, type) = TestNameServer.question(of: envelope.data) else { return }
            let policy = state.withLock { state -> Policy in
                state.queries[name, default: 0] += 1
                let policy = state.policies[name] ?? fallback
                if case .held = policy, !state.released.contains(name) {
                    state.held[name, default: []].append((envelope, type))
                    return .silent
                }
                return policy
            }
            let reply: ByteBuffer
            switch policy {
            case .address(let bytes), .held(let bytes): reply = TestNameServer.reply(to: envelope.data, type: type, code: 0, address: bytes)
            case .noSuchName: reply = TestNameServer.reply(to: envelope.data, type: type, code: 3, address: nil)
            case .silent: return
            }
            context.writeAndFlush(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: reply)), promise: nil)
        }
    }
}
