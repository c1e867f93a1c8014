import Foundation
import WebImage

/// The settings of ``SettingSection/listen``.
extension ServerSetting {
    /// The settings of ``SettingSection/listen``, in the order the help lists them.
    static let listenSettings: [ServerSetting] = [
        bind, port, readRequestTimeout, keepAliveTimeout, writeResponseTimeout, maxClients, maxClientsPerAddress, clientSendBuffer,
        gracefulStopTimeout, pathPrefix, healthCheckPath, secret, allowOrigin, playground,
    ]

    /// `--bind`: address to listen on (`0.0.0.0` for every interface).
    public static let bind = text(
        "bind", .listen, \.listen.host, placeholder: "ADDR",
        imgproxy: [own("IMGPROXY_BIND")],
        imgproxyDefault: "0.0.0.0",
        help: "address to listen on (`0.0.0.0` for every interface)",
        check: { setting, host throws(ServerConfigError) in
            guard !host.isEmpty else { throw setting.error("the bind address is empty") }
        }
    )

    /// `--port`: port; 0 picks a free one (the first line printed says which).
    public static let port = integer(
        "port", .listen, \.listen.port, bounds: .within(0...65535),
        imgproxy: [own("IMGPROXY_BIND")],
        help: "port; 0 picks a free one (the first line printed says which); without this setting or a bind, the `PORT` variable platforms set is the port, on every interface"
    )

    /// `--read-request-timeout`: longest a client may take to send a request, head and body, from connecting or the request's first byte; a slower client is disconnected.
    public static let readRequestTimeout = seconds(
        "readRequestTimeout", .listen, \.listen.readRequestTimeout,
        imgproxy: [same("IMGPROXY_READ_REQUEST_TIMEOUT"), own("IMGPROXY_READ_TIMEOUT", isImgproxys: false)],
        help: "longest a client may take to send a request, head and body, from connecting or the request's first byte; a slower client is disconnected"
    )

    /// `--keep-alive-timeout`: longest a kept-alive connection may wait for its next request; `0` turns keep-alive off.
    public static let keepAliveTimeout = seconds(
        "keepAliveTimeout", .listen, \.listen.keepAliveTimeout, zeroIsOff: true,
        imgproxy: [same("IMGPROXY_KEEP_ALIVE_TIMEOUT")],
        help: "longest a kept-alive connection may wait for its next request; `0` turns keep-alive off"
    )

    /// `--write-response-timeout`: longest a response may take to be written, from its first byte until its last has left for the client; a client that does not read it in time is disconnected.
    public static let writeResponseTimeout = seconds(
        "writeResponseTimeout", .listen, \.listen.writeResponseTimeout,
        imgproxy: [same("IMGPROXY_WRITE_RESPONSE_TIMEOUT")],
        help: "longest a response may take to be written, from its first byte until its last has left for the client; a client that does not read it in time is disconnected"
    )

    /// `--max-clients`: client connections open at once; past it the server stops accepting, and a new connection waits in the listening socket's backlog until one closes.
    public static let maxClients = integer(
        "maxClients", .listen, \.listen.maxClients, bounds: .atLeast(1),
        imgproxy: [zeroKeepsDefault("IMGPROXY_MAX_CLIENTS")],
        help: "client connections open at once; past it the server stops accepting, and a new connection waits in the listening socket's backlog until one closes"
    )

    /// `--max-clients-per-address`: client connections one address (an IPv6 client's /64) may hold; one more is closed as soon as it is accepted; `0`: no cap per address.
    public static let maxClientsPerAddress = integer(
        "maxClientsPerAddress", .listen, \.listen.maxClientsPerAddress, bounds: .atLeast(0),
        imgproxyDefault: 0,
        help: "client connections one address (an IPv6 client's /64) may hold; one more is closed as soon as it is accepted; `0`: no cap per address"
    )

    /// `--client-send-buffer`: the kernel's send buffer of each client connection (`256K`): what a client that does not read holds of the server's memory besides the response; the system's grows to `net.ipv4.tcp_wmem`'s maximum.
    public static let clientSendBuffer = bytes(
        "clientSendBuffer", .listen, \.listen.clientSendBufferSize, bounds: .within(0...Int(Int32.max)), placeholder: "BYTES",
        default: "`0`: the system's",
        help: "the kernel's send buffer of each client connection (`256K`): what a client that does not read holds of the server's memory besides the response; the system's grows to `net.ipv4.tcp_wmem`'s maximum"
    )

    /// `--graceful-stop-timeout`: how long a stop waits for the requests in flight before cutting them off and closing every connection; `0`: at once.
    public static let gracefulStopTimeout = ServerSetting(
        "gracefulStopTimeout", .listen, kind: .custom, placeholder: "S",
        imgproxy: [same("IMGPROXY_GRACEFUL_STOP_TIMEOUT")],
        default: "`20`",
        help: "how long a stop waits for the requests in flight before cutting them off and closing every connection; `0`: at once"
    ) { setting, values, config throws(ServerConfigError) in
        // 0 cuts the requests in flight off at once, as imgproxy's 0 does.
        config.listen.gracefulStopTimeout = try SettingText.seconds(values.last ?? "", setting, zeroIsOff: true)
    }

    /// `--path-prefix`: prefix of every path (`/images/<signature>/…`, `/images/health`); a path without it is 404.
    public static let pathPrefix = optionalText(
        "pathPrefix", .listen, \.listen.pathPrefix, placeholder: "PATH",
        imgproxy: [same("IMGPROXY_PATH_PREFIX")],
        help: "prefix of every path (`/images/<signature>/…`, `/images/health`); a path without it is 404; `images` and `/images/` are read as `/images`",
        normalized: SettingText.urlPath,
        check: { setting, prefix throws(ServerConfigError) in
            if !prefix.isEmpty, !prefix.hasPrefix("/") || prefix.hasSuffix("/") || prefix.contains(where: { $0.isWhitespace || $0 == "*" || $0 == "?" }) {
                throw setting.error("the path prefix '\(prefix)' is not a path such as /images")
            }
        }
    )

    /// `--health-check-path`: another path answered like `/health`.
    public static let healthCheckPath = optionalText(
        "healthCheckPath", .listen, \.listen.healthCheckPath, placeholder: "PATH",
        imgproxy: [same("IMGPROXY_HEALTH_CHECK_PATH")],
        help: "another path answered like `/health`; `healthz` and `/healthz/` are read as `/healthz`, `/` as none",
        normalized: SettingText.urlPath,
        check: { setting, path throws(ServerConfigError) in
            if path == "/" || !path.hasPrefix("/") || path.contains(where: { $0.isWhitespace || $0 == "*" || $0 == "?" }) {
                throw setting.error("the health check path '\(path)' is not a plain path such as /healthz")
            }
        }
    )

    /// `--secret`: image requests, and `/metrics` on the proxy's port, must carry `Authorization: Bearer TOKEN`; others get 403 (`/health` and a `--prometheus-bind` listener need none).
    public static let secret = optionalText(
        "secret", .listen, \.listen.secret, placeholder: "TOKEN",
        imgproxy: [same("IMGPROXY_SECRET")],
        help: "image requests, and `/metrics` on the proxy's port, must carry `Authorization: Bearer TOKEN`; others get 403 (`/health` and a `--prometheus-bind` listener need none)",
        check: { setting, secret throws(ServerConfigError) in
            if secret.isEmpty || secret.contains(where: { $0.isWhitespace || $0.isNewline }) {
                throw setting.error("the secret must be a token without blanks")
            }
        }
    )

    /// `--allow-origin`: `Access-Control-Allow-Origin` (with `Access-Control-Allow-Methods: GET, OPTIONS`) on the responses of image paths, errors included; `OPTIONS` preflights answered 200.
    public static let allowOrigin = optionalText(
        "allowOrigin", .listen, \.listen.allowOrigin, placeholder: "ORIGIN",
        imgproxy: [same("IMGPROXY_ALLOW_ORIGIN")],
        help: "`Access-Control-Allow-Origin` (with `Access-Control-Allow-Methods: GET, OPTIONS`) on the responses of image paths, errors included; `OPTIONS` preflights answered 200",
        check: { setting, origin throws(ServerConfigError) in
            // A header value of visible ASCII: nothing that could end the header or start another.
            if origin.isEmpty || origin.unicodeScalars.contains(where: { !(0x21...0x7E).contains($0.value) }) {
                throw setting.error("the allowed origin '\(origin)' is not an origin such as https://example.com or *")
            }
        }
    )

    /// `--playground`: serve the playground page at `/`.
    public static let playground = bool(
        "playground", .listen, \.listen.playground,
        default: "off (on in `make run`)",
        help: "serve the playground page at `/`"
    )
}
