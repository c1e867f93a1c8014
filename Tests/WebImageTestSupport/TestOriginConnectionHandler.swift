import Foundation
import NIOCore
import NIOHTTP1

/// One step of sending a response on a connection.
package enum TestOriginStep {
    /// Write (and flush) these bytes.
    case write(ByteBuffer)
    /// Pause (scheduled on the event loop).
    case wait(TimeAmount)
    /// Pause until the gate opens.
    case waitForGate(TestOriginGate)
    /// Write these bytes again and again, each time the last copy is flushed, until the
    /// client closes the connection.
    case writeForever(ByteBuffer)
    /// Send nothing more and keep the connection open.
    case stall
    /// After the writes so far are flushed, close the connection (FIN, or RST when `reset`).
    /// The response counts as dropped (finished by the origin's choice, not aborted).
    case close(reset: Bool)
    /// After the writes so far are flushed, the response is complete; then close the
    /// connection or go on with the next request on it.
    case finish(closeConnection: Bool)
}

/// Turns a `TestOriginResponse` into the bytes and pauses that send it.
package enum TestOriginWire {
    package static func plan(
        _ response: TestOriginResponse, method: String, keepAlive: Bool, http10: Bool = false,
        allocator: ByteBufferAllocator
    ) -> [TestOriginStep] {
        switch response.behavior {
        case .delayed(let delay, let inner):
            let rest = plan(inner, method: method, keepAlive: keepAlive, http10: http10, allocator: allocator)
            return delay > .zero ? [.wait(TimeAmount(delay))] + rest : rest
        case .gated(let gate, let inner):
            return [.waitForGate(gate)] + plan(inner, method: method, keepAlive: keepAlive, http10: http10, allocator: allocator)
        case .stall:
            return [.stall]
        case .drop:
            return [.close(reset: false)]
        case .reset:
            return [.close(reset: true)]
        case .endless(let contentType, let piece):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nTransfer-Encoding: chunked\r\n\r\n"
            var chunk = allocator.buffer(capacity: piece.count + 16)
            chunk.writeString(String(piece.count, radix: 16) + "\r\n")
            chunk.writeBytes(piece)
            chunk.writeString("\r\n")
            return [.write(allocator.buffer(string: head)), .writeForever(chunk)]
        case .reply(let reply):
            return plan(reply, method: method, keepAlive: keepAlive, http10: http10, allocator: allocator)
        }
    }

    private static func plan(
        _ reply: TestOriginResponse.Reply, method: String, keepAlive: Bool, http10: Bool,
        allocator: ByteBufferAllocator
    ) -> [TestOriginStep] {
        let status = reply.status
        let statusAllowsBody = !((100..<200).contains(status) || status == 204 || status == 304)
        let sendsBody = statusAllowsBody && method.uppercased() != "HEAD"
        let userFramed = reply.header("Content-Length") != nil || reply.header("Transfer-Encoding") != nil
        let chunked: Bool
        if let transferEncoding = reply.header("Transfer-Encoding") {
            chunked = transferEncoding.lowercased().contains("chunked")
        } else {
            chunked = reply.transferEncoding == .chunked && reply.header("Content-Length") == nil && statusAllowsBody
        }
        let lying = reply.declaredContentLength.map { $0 != reply.body.count } ?? false
        // A lying reply ends its connection (announced with `Connection: close`, so that a pooling
        // client does not race the close by reusing it).
        let closeAfter = !keepAlive || reply.closeConnection || lying

        var head = "HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\n"
        for (name, value) in reply.headers {
            head += "\(name): \(value)\r\n"
        }
        if !userFramed && statusAllowsBody {
            if chunked {
                head += "Transfer-Encoding: chunked\r\n"
            } else {
                head += "Content-Length: \(reply.declaredContentLength ?? reply.body.count)\r\n"
            }
        }
        if reply.header("Connection") == nil {
            if closeAfter {
                head += "Connection: close\r\n"
            } else if http10 {
                head += "Connection: keep-alive\r\n"
            }
        }
        head += "\r\n"

        var steps: [TestOriginStep] = [.write(allocator.buffer(string: head))]
        // Where the body pauses for a gate, as an offset into the body (nil: no pause).
        var pauseAt = reply.pause.map { reply.body.startIndex + min($0.afterBodyBytes, reply.body.count) }
        if let pause = reply.pause, !sendsBody || pause.afterBodyBytes == 0 {
            steps.append(.waitForGate(pause.gate))
            pauseAt = nil
        }
        guard sendsBody else {
            if let _ = reply.cutAfterBodyBytes {
                steps.append(ending(reply.cutEnding))
            } else {
                steps.append(.finish(closeConnection: closeAfter))
            }
            return steps
        }

        var payload = reply.body
        if let cut = reply.cutAfterBodyBytes {
            payload = payload.prefix(cut)
        }
        let pieceSize = reply.chunkSize ?? max(1, payload.count)
        let interval = TimeAmount(reply.chunkInterval)
        var offset = payload.startIndex
        var first = true
        while offset < payload.endIndex {
            var end = payload.index(offset, offsetBy: pieceSize, limitedBy: payload.endIndex) ?? payload.endIndex
            if let pause = pauseAt, offset < pause, pause < end { end = pause }
            let piece = payload[offset..<end]
            var buffer = allocator.buffer(capacity: piece.count + 16)
            if chunked {
                buffer.writeString(String(piece.count, radix: 16) + "\r\n")
                buffer.writeBytes(piece)
                buffer.writeString("\r\n")
            } else {
                buffer.writeBytes(piece)
            }
            if !first && interval > .zero {
                steps.append(.wait(interval))
            }
            steps.append(.write(buffer))
            first = false
            offset = end
            if let pause = pauseAt, let gate = reply.pause?.gate, offset == pause {
                steps.append(.waitForGate(gate))
                pauseAt = nil
            }
        }

        if reply.cutAfterBodyBytes != nil {
            steps.append(ending(reply.cutEnding))
            return steps
        }
        if chunked {
            if !first && interval > .zero {
                steps.append(.wait(interval))
            }
            steps.append(.write(allocator.buffer(string: "0\r\n\r\n")))
        }
        steps.append(.finish(closeConnection: closeAfter))
        return steps
    }

    private static func ending(_ ending: TestOriginResponse.CutEnding) -> TestOriginStep {
        switch ending {
        case .stall: return .stall
        case .close: return .close(reset: false)
        case .reset: return .close(reset: true)
        }
    }
}

/// Serves the requests of one connection, one at a time and in order (pipelined requests wait
/// for the responses before them). Runs on the connection's event loop only.
package final class TestOriginConnectionHandler: ChannelInboundHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundOut = ByteBuffer

    private struct Pending {
        package let ticket: Int
        package let request: TestOriginRequest
        package let keepAlive: Bool
        package let http10: Bool
    }

    private let core: TestOriginCore
    private let connectionID: Int
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var queue: [Pending] = []
    private var activeTicket: Int?
    private var scheduled: Scheduled<Void>?
    private var lastWrite: EventLoopFuture<Void>?
    private var isOpen = true
    /// Set once a response decided to end the connection: later requests on it are not served.
    private var closing = false

    package init(core: TestOriginCore, connectionID: Int) {
        self.core = core
        self.connectionID = connectionID
    }

    package func channelActive(context: ChannelHandlerContext) {
        if !core.connectionOpened(connectionID, channel: context.channel) {
            context.close(promise: nil)
        }
        context.fireChannelActive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let requestHead = head, isOpen, !closing else { return }
            head = nil
            let request = TestOriginRequest(
                method: requestHead.method.rawValue,
                uri: requestHead.uri,
                headers: requestHead.headers.map { ($0.name, $0.value) },
                body: Data(body.readableBytesView),
                httpVersion: "HTTP/\(requestHead.version.major).\(requestHead.version.minor)",
                connectionID: connectionID
            )
            body = ByteBuffer()
            let (ticket, recorded) = core.requestReceived(request)
            queue.append(
                Pending(
                    ticket: ticket, request: recorded, keepAlive: requestHead.isKeepAlive,
                    http10: requestHead.version == .http1_0
                )
            )
            if activeTicket == nil {
                startNext(context: context)
            }
        }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        isOpen = false
        scheduled?.cancel()
        scheduled = nil
        if let ticket = activeTicket {
            core.responseEnded(ticket, outcome: .aborted)
        }
        activeTicket = nil
        for pending in queue {
            core.responseEnded(pending.ticket, outcome: .aborted)
        }
        queue.removeAll()
        core.connectionClosed(connectionID)
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A client that resets or sends garbage only ends its own connection.
        context.close(promise: nil)
    }

    private func startNext(context: ChannelHandlerContext) {
        guard isOpen, !closing, activeTicket == nil, !queue.isEmpty else { return }
        let pending = queue.removeFirst()
        activeTicket = pending.ticket
        lastWrite = nil
        let response = core.response(for: pending.request)
        let steps = TestOriginWire.plan(
            response, method: pending.request.method, keepAlive: pending.keepAlive, http10: pending.http10,
            allocator: context.channel.allocator
        )
        run(steps[...], ticket: pending.ticket, context: context)
    }

    private func run(_ steps: ArraySlice<TestOriginStep>, ticket: Int, context: ChannelHandlerContext) {
        var steps = steps
        while let step = steps.popFirst() {
            guard isOpen, activeTicket == ticket else { return }
            switch step {
            case .write(let buffer):
                let written = context.writeAndFlush(wrapOutboundOut(buffer))
                lastWrite = written
                written.assumeIsolated().whenFailure { _ in
                    context.close(promise: nil)
                }
            case .wait(let delay):
                let rest = steps
                scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
                    self.scheduled = nil
                    self.run(rest, ticket: ticket, context: context)
                }
                return
            case .waitForGate(let gate):
                // The gate opens on the test's thread: hop back to the connection's event loop.
                let loop = context.eventLoop
                let resume = NIOLoopBound((handler: self, context: context, rest: steps), eventLoop: loop)
                gate.whenOpen {
                    loop.execute {
                        let (handler, context, rest) = resume.value
                        handler.run(rest, ticket: ticket, context: context)
                    }
                }
                return
            case .writeForever(let buffer):
                writeForever(buffer, ticket: ticket, context: context)
                return
            case .stall:
                return
            case .close(let reset):
                closing = true
                afterWrites(ticket: ticket) {
                    self.activeTicket = nil
                    self.core.responseEnded(ticket, outcome: .dropped)
                    self.close(context: context, reset: reset)
                }
                return
            case .finish(let closeConnection):
                if closeConnection { closing = true }
                afterWrites(ticket: ticket) {
                    self.activeTicket = nil
                    self.core.responseEnded(ticket, outcome: .completed)
                    if closeConnection {
                        self.close(context: context, reset: false)
                    } else {
                        self.startNext(context: context)
                    }
                }
                return
            }
        }
    }

    /// Writes `buffer`, and once it is flushed, again (from a new event-loop task, so the
    /// stack does not grow), while the response is current and the connection open.
    private func writeForever(_ buffer: ByteBuffer, ticket: Int, context: ChannelHandlerContext) {
        guard isOpen, activeTicket == ticket else { return }
        let written = context.writeAndFlush(wrapOutboundOut(buffer))
        lastWrite = written
        let loop = context.eventLoop
        let next = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        written.assumeIsolated().whenComplete { result in
            guard case .success = result else {
                context.close(promise: nil)
                return
            }
            loop.execute {
                let (handler, context) = next.value
                handler.writeForever(buffer, ticket: ticket, context: context)
            }
        }
    }

    /// Runs `body` once every write so far has been flushed, if the response is still current.
    private func afterWrites(ticket: Int, _ body: @escaping () -> Void) {
        guard let lastWrite else {
            body()
            return
        }
        lastWrite.assumeIsolated().whenSuccess { _ in
            guard self.isOpen, self.activeTicket == ticket else { return }
            body()
        }
    }

    private func close(context: ChannelHandlerContext, reset: Bool) {
        guard isOpen else { return }
        if reset, let provider = context.channel as? SocketOptionProvider {
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        } else {
            context.close(promise: nil)
        }
    }
}
