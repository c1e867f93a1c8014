import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// A proxy server with a throw-away cache, and a client to talk to it. By default it runs
/// in process (HummingbirdTesting's router tests: no socket, no port); tests where the
/// connections are the point start it on 127.0.0.1 with an ephemeral port
/// (``Transport/socket``). Loopback sources are allowed unless a test says otherwise,
/// since the test origin lives on 127.0.0.1.
final class TestProxy: Sendable {
    /// How the test reaches the server.
    enum Transport: Sendable {
        /// Requests go straight to the application's router.
        case inProcess
        /// The server listens on 127.0.0.1; requests go through AsyncHTTPClient.
        case socket
    }

    /// Where requests go: the port of a listening server, or the router's test client.
    private enum Endpoint: Sendable {
        case port(Int)
        case router(any TestClientProtocol)
    }

    let server: ProxyServer
    let cacheDirectory: String
    private let endpoint: Endpoint
    private let stopSignal: AsyncStream<Void>.Continuation
    private let task: Task<Void, any Error>

    /// The port the server listens on; only a server started with ``Transport/socket`` has one.
    var port: Int {
        guard case .port(let port) = endpoint else { preconditionFailure("this proxy runs in process: start it with transport: .socket") }
        return port
    }

    private init(
        server: ProxyServer, cacheDirectory: String, endpoint: Endpoint, stopSignal: AsyncStream<Void>.Continuation, task: Task<Void, any Error>
    ) {
        self.server = server
        self.cacheDirectory = cacheDirectory
        self.endpoint = endpoint
        self.stopSignal = stopSignal
        self.task = task
    }

    struct Reply: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: Data

        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Starts a server; `configure` changes the test defaults (loopback allowed, 2 workers,
    /// errors answered with their diagnostics).
    static func start(
        transport: Transport = .inProcess,
        configure: (inout ServerConfig) -> Void = { _ in },
        resolve: (@Sendable (String) async throws(ImageError) -> [IPAddress])? = nil,
        logger: Logger? = nil
    ) async throws -> TestProxy {
        var config = ServerConfig()
        config.listen.port = 0
        config.sources.allowLoopback = true
        config.limits.workers = 2
        config.caching.cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-proxy-\(UUID().uuidString)").path
        // Long enough for a loaded machine (the suite under the thread sanitizer on 2 cores):
        // a test of the timeout sets its own.
        config.sources.downloadTimeout = .seconds(60)
        // The tests read the diagnostics; those of what clients see turn this off.
        config.responses.developmentErrors = true
        configure(&config)
        let logger = logger ?? {
            var quiet = Logger(label: "webimage.test")
            quiet.logLevel = .critical
            return quiet
        }()
        let server: ProxyServer
        if let resolve {
            server = try ProxyServer(config: config, logger: logger, resolve: resolve)
        } else {
            server = try ProxyServer(config: config, logger: logger)
        }
        let (stop, stopSignal) = AsyncStream.makeStream(of: Void.self)
        // How the test reaches the server, handed out once it serves; the task runs it until `stop` ends.
        let (endpoints, endpoint) = AsyncStream.makeStream(of: Endpoint.self)
        let task: Task<Void, any Error>
        switch transport {
        case .socket:
            let services = ServiceGroup(configuration: .init(
                services: server.makeApplications { port in endpoint.yield(.port(port)) }, logger: logger
            ))
            task = Task {
                defer { endpoint.finish() }
                async let running: Void = services.run()
                for await _ in stop {}
                await services.triggerGracefulShutdown()
                try await running
            }
        case .inProcess:
            let application = server.application()
            task = Task {
                defer { endpoint.finish() }
                try await application.test(.router) { client in
                    endpoint.yield(.router(client))
                    for await _ in stop {}
                }
            }
        }
        var iterator = endpoints.makeAsyncIterator()
        guard let reached = await iterator.next() else {
            try await task.value
            throw ImageError.network("the proxy did not start")
        }
        return TestProxy(server: server, cacheDirectory: config.caching.cacheDirectory, endpoint: reached, stopSignal: stopSignal, task: task)
    }

    /// Runs `body` with a fresh origin and proxy, stopping both afterwards.
    static func with(
        transport: Transport = .inProcess,
        configure: (inout ServerConfig) -> Void = { _ in },
        resolve: (@Sendable (String) async throws(ImageError) -> [IPAddress])? = nil,
        logger: Logger? = nil,
        _ body: (TestOrigin, TestProxy) async throws -> Void
    ) async throws {
        let origin = try await TestOrigin.start()
        let proxy = try await start(transport: transport, configure: configure, resolve: resolve, logger: logger)
        do {
            try await body(origin, proxy)
        } catch {
            await proxy.stop()
            try? await origin.shutdown()
            throw error
        }
        await proxy.stop()
        try await origin.shutdown()
    }

    /// Stops the server (gracefully: requests in flight finish) and removes its cache.
    func stop() async {
        stopSignal.finish()
        _ = try? await task.value
        try? FileManager.default.removeItem(atPath: cacheDirectory)
    }

    /// GETs `path` (as given, already encoded) from the proxy; over a socket, the client
    /// gives up after `timeout`.
    func get(_ path: String, headers: [(String, String)] = [], timeout: Duration = .seconds(300)) async throws -> Reply {
        try await request(.get, path, headers: headers, timeout: timeout)
    }

    /// Sends a request to the proxy.
    func request(
        _ method: HTTPRequest.Method, _ path: String, headers: [(String, String)] = [], body: ByteBuffer? = nil, timeout: Duration = .seconds(300)
    ) async throws -> Reply {
        if case .router(let router) = endpoint {
            var fields = HTTPFields()
            for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            let response = try await router.executeRequest(uri: path, method: method, headers: fields, body: body)
            return Reply(
                status: response.status.code, headers: response.headers.map { ($0.name.rawName, $0.value) },
                body: Data(response.body.readableBytesView)
            )
        }
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = NIOHTTP1.HTTPMethod(rawValue: method.rawValue)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(body) }
        let response = try await HTTPClient.shared.execute(request, timeout: TimeAmount(timeout))
        var body = try await response.body.collect(upTo: 64 << 20)
        let data = Data(body.readBytes(length: body.readableBytes) ?? [])
        return Reply(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: data)
    }

    /// The variants written to disk.
    func variantFilesOnDisk() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory + "/proxy-variants"))?.filter { !$0.hasPrefix(".") }.count ?? 0
    }

    /// The originals written to disk.
    func originalFilesOnDisk() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory + "/proxy-originals"))?.filter { !$0.hasPrefix(".") }.count ?? 0
    }

    /// The value of a Prometheus sample (`name{labels}`), 0 when absent.
    func metric(_ sample: String) async throws -> Double {
        let text = try await get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Double(line.split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }
}

/// An HTTP client for a proxy running elsewhere (a subprocess).
struct LiveClient: Sendable {
    let port: Int
    var client: HTTPClient { Self.client }

    /// Keeps an idle connection 5 s, under the proxy's 10 s keep-alive timeout (as nginx
    /// in front of it is set to): a client that kept it longer could send a request on a
    /// connection the proxy is closing at that moment, and get `remoteConnectionClosed`.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(5))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    func get(_ path: String, headers: [(String, String)] = []) async throws -> TestProxy.Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        // A bound for a hung proxy only: under the thread sanitizer on 2 cores, answers take minutes.
        let response = try await client.execute(request, timeout: .seconds(300))
        var body = try await response.body.collect(upTo: 64 << 20)
        let data = Data(body.readBytes(length: body.readableBytes) ?? [])
        return TestProxy.Reply(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: data)
    }

    /// A `HEAD` request: the status and headers, no body.
    func head(_ path: String) async throws -> TestProxy.Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .HEAD
        let response = try await client.execute(request, timeout: .seconds(300))
        return TestProxy.Reply(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: Data())
    }
}

/// A proxy path for `source`: `/<signature>/<options>/<base64url source>[.ext]`, signed
/// with `key` when given, else `insecure`.
func proxyPath(_ options: String, source: URL, extension ext: String? = nil, key: SigningKey? = nil, signatureSize: Int = 32) -> String {
    let encoded = Data(source.absoluteString.utf8).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    var rest = (options.isEmpty ? "" : "/" + options) + "/" + encoded
    if let ext { rest += "." + ext }
    let signature = key.map { ProxyURLParser.signature(for: rest, key: $0, signatureSize: signatureSize) } ?? "insecure"
    return "/" + signature + rest
}

/// Test images, encoded once.
enum ProxyImages {
    static let jpeg: Data = try! TestImages.encode(try! TestImages.gradient(width: 400, height: 300), as: .jpeg)
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 200, height: 100, alpha: true), as: .png)

    static func size(of data: Data) throws -> PixelSize {
        try VipsCoder.shared.inspect(data, limits: .default).pixelSize
    }
}
