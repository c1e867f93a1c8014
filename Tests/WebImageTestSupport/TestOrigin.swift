import Dispatch
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import WebImage
import WebImageLocking

/// An in-process HTTP/1.1 origin on 127.0.0.1 (or another loopback address; ephemeral port) for
/// tests: serves registered routes with scripted behaviours (see `TestOriginResponse`) and counts
/// what it sees.
///
///     let origin = try await TestOrigin.start()
///     origin.register("/a.png", .image(png))
///     ... load origin.url("/a.png") ...
///     #expect(origin.requestCount("/a.png") == 1)
///     try await origin.shutdown()
///
/// Every counter is thread-safe. Responses are produced on the origin's own event loop thread;
/// a handler closure runs there too, so it must be quick and must not block.
///
/// Things to know:
/// - A request is recorded (and counted) once it has fully arrived, before its response starts.
/// - A response ends (leaves `inFlightCount`) a moment after its last byte went to the socket, so
///   the client may see it slightly before the counters do: use `waitForIdle()`/`waitUntil`, not
///   an immediate `#expect(origin.inFlightCount == 0)`.
/// - `abortedCount` counts responses cut because the connection closed first (client closed or
///   reset it, e.g. a cancelled download), including pipelined requests still queued behind them.
///   It grows asynchronously: wait with `waitForAbort(path)`. Deliberate drops/resets/lies and
///   closes caused by `shutdown()` are not aborts.
/// - Requests on one connection are answered in order, so a pipelined request waits (in flight)
///   behind a stalled or delayed one; `maxConcurrentRequests` counts those too.
/// - Always `shutdown()` (or use `TestOrigin.with`); a forgotten origin is stopped on deinit.
package final class TestOrigin: Sendable {
    /// The listening address (`127.0.0.1` unless ``start(tls:host:port:)`` chose another).
    package let host: String
    /// The listening port.
    package let port: Int
    /// Whether the origin speaks HTTPS (``start(tls:host:port:)``).
    package let isSecure: Bool
    private let core: TestOriginCore
    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel

    private init(
        host: String, port: Int, isSecure: Bool, core: TestOriginCore, group: MultiThreadedEventLoopGroup, serverChannel: any Channel
    ) {
        self.host = host
        self.port = port
        self.isSecure = isSecure
        self.core = core
        self.group = group
        self.serverChannel = serverChannel
    }

    deinit {
        // A test that forgot `shutdown()` (or threw before it) must not leak the thread.
        if core.beginShutdown() != nil {
            serverChannel.close(promise: nil)
            group.shutdownGracefully(queue: .global()) { _ in }
        }
    }

    /// Starts an origin on `host` (an IPv4 loopback address, 127.0.0.1 by default) and `port`
    /// (0: an ephemeral one); with `tls`, it speaks HTTPS.
    package static func start(tls: TLSConfiguration? = nil, host: String = "127.0.0.1", port: Int = 0) async throws -> TestOrigin {
        let sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
        let core = TestOriginCore()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 1024)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    let connectionID = core.nextConnectionID()
                    return channel.eventLoop.makeCompletedFuture {
                        if let sslContext {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                        }
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes))
                        )
                        try channel.pipeline.syncOperations.addHandler(
                            TestOriginConnectionHandler(core: core, connectionID: connectionID)
                        )
                    }
                }
                .bind(host: host, port: port)
                .get()
            guard let port = channel.localAddress?.port else {
                try? await channel.close()
                throw TestOriginError.noPort
            }
            return TestOrigin(host: host, port: port, isSecure: sslContext != nil, core: core, group: group, serverChannel: channel)
        } catch {
            _ = core.beginShutdown()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Starts an origin, runs `body` with it and shuts it down, even when `body` throws.
    package static func with<T: Sendable>(_ body: (TestOrigin) async throws -> T) async throws -> T {
        let origin = try await start()
        do {
            let result = try await body(origin)
            try await origin.shutdown()
            return result
        } catch {
            try? await origin.shutdown()
            throw error
        }
    }

    /// Stops listening, closes every connection (stalled ones too) and stops the event loop.
    /// Responses cut by the shutdown are not counted as aborted. Safe to call more than once.
    package func shutdown() async throws {
        guard let channels = core.beginShutdown() else { return }
        try? await serverChannel.close()
        for channel in channels {
            try? await channel.close()
        }
        try await group.shutdownGracefully()
    }

    // MARK: URLs

    /// "http://HOST:PORT" (HOST being 127.0.0.1 unless the origin listens elsewhere).
    package var baseURL: URL {
        URL(string: "\(isSecure ? "https" : "http")://\(host):\(port)")!
    }

    /// The URL of `path` on this origin; `path` may carry a query ("/a.png?v=2") and a missing
    /// leading "/" is added.
    package func url(_ path: String) -> URL {
        let target = path.hasPrefix("/") ? path : "/" + path
        return URL(string: baseURL.absoluteString + target)!
    }

    // MARK: Routes
    //
    // Every `path` argument below (routes and counters) is matched without its query string;
    // "a.png", "/a.png?v=1" and "http://127.0.0.1:PORT/a.png" all mean "/a.png".

    /// Serves `response` for `path` (matched without the query string); replaces an earlier route.
    package func register(_ path: String, _ response: TestOriginResponse) {
        core.setRoute(TestOriginCore.key(path), .fixed(response))
    }

    /// Serves what `handler` returns for each request to `path` (matched without the query string);
    /// replaces an earlier route. The handler runs on the origin's event loop: keep it quick.
    package func register(_ path: String, handler: @escaping @Sendable (TestOriginRequest) -> TestOriginResponse) {
        core.setRoute(TestOriginCore.key(path), .dynamic(handler))
    }

    /// Removes the route for `path` (it answers 404 again).
    package func unregister(_ path: String) {
        core.setRoute(TestOriginCore.key(path), nil)
    }

    // MARK: Observation

    /// Requests received for `path` (query ignored) since start or `resetCounters()`.
    package func requestCount(_ path: String) -> Int {
        core.read { $0.requestsByPath[TestOriginCore.key(path)]?.count ?? 0 }
    }

    /// Requests received for any path since start or `resetCounters()`.
    package var totalRequestCount: Int {
        core.read { $0.requests.count }
    }

    /// The requests for `path`, in arrival order.
    package func requests(_ path: String) -> [TestOriginRequest] {
        core.read { $0.requestsByPath[TestOriginCore.key(path)] ?? [] }
    }

    /// Every request, in arrival order.
    package var allRequests: [TestOriginRequest] {
        core.read { $0.requests }
    }

    /// The latest request for `path`.
    package func lastRequest(_ path: String) -> TestOriginRequest? {
        core.read { $0.requestsByPath[TestOriginCore.key(path)]?.last }
    }

    /// Requests received whose response has not ended yet (being delayed, streamed, stalled or
    /// queued behind an earlier one on the same connection).
    package var inFlightCount: Int {
        core.read { $0.inFlight.count }
    }

    /// The highest `inFlightCount` since start or `resetCounters()`.
    package var maxConcurrentRequests: Int {
        core.read { $0.maxConcurrent }
    }

    /// Responses for `path` that could not be finished because the connection closed first
    /// (the client went away or reset). This is how a test sees a cancelled download.
    package func abortedCount(_ path: String) -> Int {
        core.read { $0.aborted[TestOriginCore.key(path)] ?? 0 }
    }

    /// Aborted responses over all paths.
    package var totalAbortedCount: Int {
        core.read { $0.aborted.values.reduce(0, +) }
    }

    /// Responses for `path` sent completely (the last byte handed to the socket).
    package func completedCount(_ path: String) -> Int {
        core.read { $0.completed[TestOriginCore.key(path)] ?? 0 }
    }

    /// Connections accepted since start or `resetCounters()`.
    package var connectionCount: Int {
        core.read { $0.connectionCount }
    }

    /// Connections open now.
    package var openConnectionCount: Int {
        core.read { $0.channels.count }
    }

    /// Forgets recorded requests and counts (requests, aborted, completed, connections); the peak
    /// concurrency restarts from the current `inFlightCount`. Routes are kept.
    package func resetCounters() {
        core.write { state in
            state.requests.removeAll()
            state.requestsByPath.removeAll()
            state.aborted.removeAll()
            state.completed.removeAll()
            state.connectionCount = 0
            state.maxConcurrent = state.inFlight.count
        }
    }

    // MARK: Waiting

    /// Polls (every few milliseconds, without blocking) until `condition` holds; false on timeout.
    package func waitUntil(
        timeout: Duration = .seconds(300), _ condition: @Sendable (TestOrigin) -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if condition(self) { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until at least `count` responses for `path` were aborted; false on timeout.
    package func waitForAbort(_ path: String, count: Int = 1, timeout: Duration = .seconds(300)) async -> Bool {
        await waitUntil(timeout: timeout) { $0.abortedCount(path) >= count }
    }

    /// Waits until at least `count` requests for `path` arrived; false on timeout.
    package func waitForRequests(_ path: String, count: Int = 1, timeout: Duration = .seconds(300)) async -> Bool {
        await waitUntil(timeout: timeout) { $0.requestCount(path) >= count }
    }

    /// Waits until no response is in flight; false on timeout.
    package func waitForIdle(timeout: Duration = .seconds(300)) async -> Bool {
        await waitUntil(timeout: timeout) { $0.inFlightCount == 0 }
    }
}

package enum TestOriginError: Error {
    case noPort
}

/// The origin's shared state, used by the `TestOrigin` and by every connection's handler.
package final class TestOriginCore: Sendable {
    package enum Route: Sendable {
        case fixed(TestOriginResponse)
        case dynamic(@Sendable (TestOriginRequest) -> TestOriginResponse)
    }

    package enum Outcome {
        case completed
        case dropped
        case aborted
    }

    package struct State {
        package var routes: [String: Route] = [:]
        package var requests: [TestOriginRequest] = []
        package var requestsByPath: [String: [TestOriginRequest]] = [:]
        package var nextTicket = 0
        package var inFlight: [Int: String] = [:]
        package var maxConcurrent = 0
        package var aborted: [String: Int] = [:]
        package var completed: [String: Int] = [:]
        package var nextConnectionID = 0
        package var connectionCount = 0
        package var channels: [Int: any Channel] = [:]
        package var shuttingDown = false
    }

    private let state = Locked(State())

    /// The route key of a path argument: any query is dropped, a missing leading "/" added, and an
    /// absolute URL reduced to its path.
    package static func key(_ path: String) -> String {
        let target = path.hasPrefix("/") || path.contains("://") ? path : "/" + path
        return TestOriginRequest.split(target).path
    }

    package func read<T: Sendable>(_ body: (State) -> T) -> T {
        state.withLock { body($0) }
    }

    package func write(_ body: (inout State) -> Void) {
        state.withLock { body(&$0) }
    }

    package func setRoute(_ path: String, _ route: Route?) {
        state.withLock { $0.routes[path] = route }
    }

    package func nextConnectionID() -> Int {
        state.withLock { state in
            state.nextConnectionID += 1
            state.connectionCount += 1
            return state.nextConnectionID
        }
    }

    /// Registers an open connection; false when the origin is shutting down.
    package func connectionOpened(_ id: Int, channel: any Channel) -> Bool {
        state.withLock { state in
            guard !state.shuttingDown else { return false }
            state.channels[id] = channel
            return true
        }
    }

    package func connectionClosed(_ id: Int) {
        state.withLock { _ = $0.channels.removeValue(forKey: id) }
    }

    /// Marks the origin as shutting down and returns its open connections; nil when it already was.
    package func beginShutdown() -> [any Channel]? {
        state.withLock { state in
            guard !state.shuttingDown else { return nil }
            state.shuttingDown = true
            return Array(state.channels.values)
        }
    }

    /// Records a fully received request; returns its ticket and the request with its ordinal set.
    package func requestReceived(_ request: TestOriginRequest) -> (Int, TestOriginRequest) {
        state.withLock { state in
            var request = request
            request.ordinal = (state.requestsByPath[request.path]?.count ?? 0) + 1
            state.requests.append(request)
            state.requestsByPath[request.path, default: []].append(request)
            state.nextTicket += 1
            state.inFlight[state.nextTicket] = request.path
            state.maxConcurrent = max(state.maxConcurrent, state.inFlight.count)
            return (state.nextTicket, request)
        }
    }

    /// Ends a response (only the first call for a ticket counts).
    package func responseEnded(_ ticket: Int, outcome: Outcome) {
        state.withLock { state in
            guard let path = state.inFlight.removeValue(forKey: ticket) else { return }
            switch outcome {
            case .completed:
                state.completed[path, default: 0] += 1
            case .aborted:
                if !state.shuttingDown {
                    state.aborted[path, default: 0] += 1
                }
            case .dropped:
                break
            }
        }
    }

    /// The response for a request: its route's, or 404. A handler runs outside the lock.
    package func response(for request: TestOriginRequest) -> TestOriginResponse {
        let route = state.withLock { $0.routes[request.path] }
        switch route {
        case .fixed(let response):
            return response
        case .dynamic(let handler):
            return handler(request)
        case nil:
            return .text("Not Found: \(request.path)\n", status: 404)
        }
    }
}
