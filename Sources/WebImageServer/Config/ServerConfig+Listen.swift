import Foundation
import WebImage

extension ServerConfig {
    /// Where the server listens, which paths it answers, and how it treats its client connections.
    public struct Listen: Sendable {
        /// The address to listen on. Default `127.0.0.1`.
        public var host = "127.0.0.1"
        /// The port to listen on; 0 picks a free one. Default 8080.
        public var port = 8080
        /// How long a stop (SIGTERM, SIGINT) waits for the requests in flight before it cuts
        /// them off and closes every connection (imgproxy's `IMGPROXY_GRACEFUL_STOP_TIMEOUT`);
        /// zero: at once. `nil`: as long as they take. Default 20 s, as imgproxy's, within the
        /// 30 s a container orchestrator commonly waits before it kills the process.
        public var gracefulStopTimeout: Duration? = .seconds(20)
        /// The `Access-Control-Allow-Origin` of the proxy paths' responses, with
        /// `Access-Control-Allow-Methods: GET, OPTIONS`, and `OPTIONS` preflights answered
        /// (imgproxy's `IMGPROXY_ALLOW_ORIGIN`), e.g. `*` or `https://example.com`. `nil`: no CORS.
        public var allowOrigin: String?
        /// A bearer token every image request must carry (`Authorization: Bearer <secret>`), as
        /// imgproxy's `IMGPROXY_SECRET`: for a proxy only a CDN or an application may reach.
        /// A request without it answers 403. `nil`: no token is asked for.
        public var secret: String?
        /// A prefix every path of the server starts with (imgproxy's `IMGPROXY_PATH_PREFIX`), e.g.
        /// `/images`: `/images/<signature>/…`, `/images/health`. A path without it answers 404.
        public var pathPrefix: String?
        /// A path answered like `/health`, besides it (imgproxy's `IMGPROXY_HEALTH_CHECK_PATH`).
        public var healthCheckPath: String?
        /// Answer `GET /` with the playground page (options as form controls, the URL they
        /// make, the result and its `/info`). Default off.
        public var playground = false
        /// The longest a client may take to send a request, head and body: from the moment its
        /// connection opens, or the first byte of its next request arrives, until the request's
        /// last byte. A client slower than that is disconnected. Default 10 s, as imgproxy's
        /// `IMGPROXY_READ_REQUEST_TIMEOUT`.
        public var readRequestTimeout: Duration = .seconds(10)
        /// How long a kept-alive connection may wait for its next request before it is closed;
        /// zero turns keep-alive off (every response closes its connection). Default 10 s, as
        /// imgproxy's `IMGPROXY_KEEP_ALIVE_TIMEOUT`.
        public var keepAliveTimeout: Duration = .seconds(10)
        /// The longest a response may take to be written, from its first byte until its last
        /// has left for the client: a client that does not read it in time is disconnected.
        /// Default 10 s, as imgproxy's `IMGPROXY_WRITE_RESPONSE_TIMEOUT`.
        public var writeResponseTimeout: Duration = .seconds(10)
        /// Client connections open at once, at most. Past it the server stops accepting: a new
        /// connection waits, unread, in the listening socket's backlog until one closes, as with
        /// imgproxy's `IMGPROXY_MAX_CLIENTS`. Default 2048, as imgproxy's.
        public var maxClients = 2048
        /// Client connections one address may have open at once (an IPv6 client is counted by
        /// its /64 prefix); one more is closed as soon as it is accepted. Zero: no cap per
        /// address. Default 512, a quarter of ``maxClients``' default, more than a reverse proxy
        /// in front of the server needs; 0 under ``ServerProfile/imgproxy``, which has no such cap.
        public var maxClientsPerAddress = 512
        /// The kernel's send buffer of each client connection, in bytes: what a client that does
        /// not read holds of the server's memory besides the response, and past which the write
        /// timeout counts. Zero: the system's, which grows with the connection (up to
        /// `net.ipv4.tcp_wmem`'s maximum, 4 MiB on Linux). Default 0.
        public var clientSendBufferSize = 0

        /// The defaults.
        public init() {}
    }
}

extension ServerConfig.Listen {
    /// The limits on each client connection: the read, write and keep-alive timeouts and
    /// the send buffer.
    var clientLimits: ClientLimits {
        ClientLimits(
            readTimeout: readRequestTimeout, writeTimeout: writeResponseTimeout,
            keepAliveTimeout: keepAliveTimeout > .zero ? keepAliveTimeout : nil,
            sendBufferSize: clientSendBufferSize > 0 ? clientSendBufferSize : nil
        )
    }

    /// The connections open per client address, counted against ``maxClientsPerAddress``.
    func clientConnections() -> ClientConnections {
        ClientConnections(perAddressLimit: maxClientsPerAddress > 0 ? maxClientsPerAddress : nil)
    }
}

extension ServerConfig.Listen {
    /// The variable platforms such as Cloud Run, Heroku and Render set to the port they
    /// send traffic to, read as imgproxy reads it.
    public static let platformPortVariable = "PORT"

    /// Takes the port from ``platformPortVariable`` when it is set, listening on every
    /// interface, as imgproxy does: the platform's traffic comes from outside the container.
    /// Settings made after this (`IMGPROXY_BIND`, `WEBIMAGE_PORT`, `--port`, `--bind`) win.
    /// - Throws: ``ServerConfigError`` when the variable is not a port.
    public mutating func readPlatformPort(_ environment: [String: String]) throws(ServerConfigError) {
        guard let text = environment[Self.platformPortVariable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return }
        guard let value = Int(text), (0...65535).contains(value) else {
            throw ServerConfigError(
                "\(Self.platformPortVariable): '\(text)' is not a port (0-65535); unset it, or give the port with \(ServerSetting.port.names)"
            )
        }
        port = value
        host = "0.0.0.0"
    }
}
