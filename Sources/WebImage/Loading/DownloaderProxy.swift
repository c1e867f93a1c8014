import Foundation

/// The HTTP forward proxies an ``ImageDownloader`` sends its requests through
/// (``DownloaderConfig/proxy``).
///
/// Every proxied request goes through an HTTP `CONNECT` tunnel, `http` and `https` URLs alike:
/// the proxy opens a TCP connection to the origin, and TLS (for `https`) runs end to end
/// between the downloader and the origin, so the origin's certificate is checked as without a
/// proxy. A proxy must therefore allow `CONNECT` to the ports of the origins it serves (Squid's
/// default configuration allows it to port 443 only).
///
/// With a source guard (``DownloaderConfig/hopAddress``) the guard approves the origin's name
/// before every hop, as without a proxy, and the tunnel is opened to the address it approved
/// (`CONNECT 93.184.216.34:443`, the TLS server name and certificate check staying on the
/// name): the proxy never resolves the name itself, so a second DNS answer cannot send it
/// elsewhere. The guard approves the proxy's own address too, unless
/// ``trustsProxyAddress`` says the proxy was configured by someone who knows where it is.
///
///     var config = DownloaderConfig()
///     config.proxy = try DownloaderProxy.fromEnvironment()   // HTTP_PROXY, HTTPS_PROXY, NO_PROXY
///     config.proxy = DownloaderProxy(all: try .init(url: "http://user:secret@proxy.internal:3128"))
public struct DownloaderProxy: Sendable, Hashable {
    /// One proxy: where it listens and the credentials it asks for.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// The proxy's host name or IP address (IPv6 without brackets).
        public var host: String
        /// The proxy's port.
        public var port: Int
        /// Sent as `Proxy-Authorization: Basic …` on each `CONNECT`.
        public var credentials: DownloaderConfig.Credentials?

        /// A proxy at `host`:`port`.
        public init(host: String, port: Int, credentials: DownloaderConfig.Credentials? = nil) {
            self.host = host
            self.port = port
            self.credentials = credentials
        }

        /// A proxy written as a URL, as in `HTTP_PROXY`: `http://proxy:3128`,
        /// `http://user:pass@proxy:3128` (percent-encoded user and password), or `proxy:3128`
        /// without a scheme. The port defaults to 1080, as curl's does.
        ///
        /// - Throws: ``ImageError/invalidDownloadOperation(_:)`` for a URL that is not an HTTP
        ///   proxy: an `https://` proxy (TLS to the proxy itself is not supported), a SOCKS
        ///   proxy, no host, a bad port.
        public init(url text: String) throws(ImageError) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
            guard let components = URLComponents(string: withScheme), let host = components.host, !host.isEmpty else {
                throw .invalidDownloadOperation("proxy '\(Self.redacted(text))' is not a URL like http://proxy.example:3128")
            }
            let scheme = components.scheme?.lowercased() ?? "http"
            guard scheme == "http" else {
                let reason = scheme == "https"
                    ? "TLS to the proxy itself is not supported; use an http:// proxy (https origins are still tunnelled with TLS end to end)"
                    : "only http:// proxies are supported"
                throw .invalidDownloadOperation("proxy '\(Self.redacted(text))': \(reason)")
            }
            let port = components.port ?? 1080
            guard (1...65535).contains(port) else {
                throw .invalidDownloadOperation("proxy '\(Self.redacted(text))' has no valid port (1–65535)")
            }
            self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            self.port = port
            if let user = components.user {
                let password = components.password ?? ""
                self.credentials = DownloaderConfig.Credentials(
                    user: user.removingPercentEncoding ?? user, password: password.removingPercentEncoding ?? password
                )
            } else {
                self.credentials = nil
            }
        }

        /// `host:port`, never the credentials.
        public var description: String {
            host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }

        /// `http://host:port/`: how a source guard that takes URLs (``DownloaderConfig/hopAddress``)
        /// is asked about the proxy's address.
        var guardURL: URL? {
            URL(string: "http://\(description)/")
        }

        /// `text` with any password replaced by `***`, for messages.
        private static func redacted(_ text: String) -> String {
            guard let at = text.lastIndex(of: "@") else { return text }
            let start = text.range(of: "://")?.upperBound ?? text.startIndex
            guard start < at else { return text }
            let userInfo = text[start..<at]
            guard let colon = userInfo.firstIndex(of: ":") else { return text }
            return String(text[..<colon]) + ":***" + String(text[at...])
        }
    }

    /// The proxy for `http://` URLs; `nil`: they go direct.
    public var httpProxy: Endpoint?
    /// The proxy for `https://` URLs; `nil`: they go direct.
    public var httpsProxy: Endpoint?
    /// Hosts that go direct whatever the proxies (curl's `NO_PROXY`).
    public var noProxy: NoProxyList
    /// Whether the proxies' own addresses are exempt from the source guard
    /// (``DownloaderConfig/hopAddress``). Default `false`: the guard checks a proxy's address
    /// like an origin's, so a proxy on a loopback or private address is refused unless the
    /// guard allows such addresses. Set it for a proxy you configured yourself on such an
    /// address: the guard then still refuses private origins, while allowing private
    /// addresses in the guard would let every source URL reach them. Origins are checked
    /// either way.
    public var trustsProxyAddress: Bool

    /// Proxies for each scheme, and the hosts that go direct.
    public init(
        httpProxy: Endpoint? = nil, httpsProxy: Endpoint? = nil, noProxy: NoProxyList = .none, trustsProxyAddress: Bool = false
    ) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.noProxy = noProxy
        self.trustsProxyAddress = trustsProxyAddress
    }

    /// One proxy for `http` and `https` URLs alike.
    public init(all endpoint: Endpoint, noProxy: NoProxyList = .none, trustsProxyAddress: Bool = false) {
        self.init(httpProxy: endpoint, httpsProxy: endpoint, noProxy: noProxy, trustsProxyAddress: trustsProxyAddress)
    }

    /// The proxies the standard variables name, or `nil` when they name none: `http_proxy` /
    /// `HTTP_PROXY` for `http` URLs, `https_proxy` / `HTTPS_PROXY` for `https` URLs (the
    /// lower-case name first, as curl reads them), and `no_proxy` / `NO_PROXY` for the hosts
    /// that go direct. An empty variable counts as unset.
    ///
    /// - Throws: ``ImageError/invalidDownloadOperation(_:)`` naming the variable whose proxy
    ///   cannot be used.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ImageError) -> DownloaderProxy? {
        func value(_ name: String) -> (name: String, value: String)? {
            for key in [name.lowercased(), name.uppercased()] {
                if let value = environment[key]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return (key, value) }
            }
            return nil
        }
        func endpoint(_ name: String) throws(ImageError) -> Endpoint? {
            guard let (key, text) = value(name) else { return nil }
            do {
                return try Endpoint(url: text)
            } catch {
                throw .invalidDownloadOperation("\(key): \(error.reason)")
            }
        }
        let http = try endpoint("http_proxy")
        let https = try endpoint("https_proxy")
        guard http != nil || https != nil else { return nil }
        return DownloaderProxy(httpProxy: http, httpsProxy: https, noProxy: NoProxyList(value("no_proxy")?.value ?? ""))
    }

    /// The proxy a request to `url` goes through, or `nil` when it goes direct.
    public func endpoint(for url: URL) -> Endpoint? {
        let endpoint: Endpoint?
        switch url.scheme?.lowercased() {
        case "http": endpoint = httpProxy
        case "https": endpoint = httpsProxy
        default: endpoint = nil
        }
        guard let endpoint, !noProxy.matches(url) else { return nil }
        return endpoint
    }
}

extension ImageError {
    /// The message of an ``ImageError/invalidDownloadOperation(_:)`` without its prefix, else the description.
    fileprivate var reason: String {
        if case .invalidDownloadOperation(let reason) = self { return reason }
        return description
    }
}
