import AsyncHTTPClient
import Foundation
import NIOSSL

extension HTTPTransfer {
    /// A lease on the pooled client a hop to `url` goes through, or `nil` to use the shared
    /// client: the client pinned to the address ``DownloaderConfig/hopAddress`` approved for
    /// `url` (AsyncHTTPClient's `dnsOverride` keeps the host name for `Host`, SNI and the
    /// certificate check), through the proxy ``DownloaderConfig/proxy`` names for `url`, if any.
    ///
    /// With a proxy and a source guard, the guard approves the origin before the request is
    /// sent (the tunnel is opened to the address it approved) and the proxy's own address
    /// (unless ``DownloaderProxy/trustsProxyAddress``): every address a connection is made to,
    /// or asked of the proxy, is one the guard approved.
    ///
    /// The client is keyed by `url.host`, which is also the host AsyncHTTPClient reads from
    /// the request (it parses `url.absoluteString` and takes its `host`): the host approved,
    /// the host pinned and the host connected for are one string.
    func routedClient(for url: URL) async throws(ImageError) -> PinnedClientPool.Lease? {
        guard let host = url.host, !host.isEmpty else { return nil }
        // URL.host keeps the brackets of an IPv6 literal; AsyncHTTPClient matches without them.
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var address: String?
        if let hopAddress = config.hopAddress {
            address = try await Self.approvedAddress(of: url, by: hopAddress)
            if address == bareHost { address = nil }
        }
        guard let proxy = config.proxy, let endpoint = proxy.endpoint(for: url) else {
            guard let address else { return nil }
            return try environment.pinnedClients.lease(host: bareHost, address: address)
        }
        var connected = endpoint
        if let hopAddress = config.hopAddress, !proxy.trustsProxyAddress {
            connected.host = try await Self.approvedAddress(ofProxy: endpoint, by: hopAddress) ?? endpoint.host
        }
        // Without an address to pin, every host shares the proxy's client.
        return try environment.pinnedClients.lease(host: address == nil ? "" : bareHost, address: address, proxy: connected)
    }

    /// The address the source guard chose for `url`, or `nil` to resolve it as usual.
    private static func approvedAddress(
        of url: URL, by hopAddress: @Sendable (URL) async throws -> String?
    ) async throws(ImageError) -> String? {
        do {
            return try await hopAddress(url)
        } catch let error as ImageError {
            throw error
        } catch {
            throw .invalidDownloadOperation("the source guard refused \(url.absoluteString): \(error)")
        }
    }

    /// The address the source guard chose for the proxy `endpoint`, asked as for
    /// `http://host:port/`; a refusal names the proxy and the setting that trusts it.
    private static func approvedAddress(
        ofProxy endpoint: DownloaderProxy.Endpoint, by hopAddress: @Sendable (URL) async throws -> String?
    ) async throws(ImageError) -> String? {
        guard let url = endpoint.guardURL else {
            throw .invalidDownloadOperation("the proxy \(endpoint) has a host that cannot be written in a URL")
        }
        do {
            return try await hopAddress(url)
        } catch {
            let reason: String
            switch error {
            case ImageError.forbiddenSource(let message): reason = message
            default: reason = String(describing: error)
            }
            throw .forbiddenSource(
                "the proxy \(endpoint) was refused by the source guard (\(reason)); a proxy you configured yourself "
                    + "on such an address can be trusted with DownloaderProxy.trustsProxyAddress (webimage: --trust-proxy-address)"
            )
        }
    }

    /// A proxy's refusal or failure as a message that names the proxy.
    static func proxyFailure(_ error: HTTPClientError, config: DownloaderConfig) -> ImageError {
        let proxies = [config.proxy?.httpProxy, config.proxy?.httpsProxy].compactMap { $0?.description }
        let named = Set(proxies).sorted().joined(separator: " or ")
        let proxy = named.isEmpty ? "the proxy" : "the proxy \(named)"
        switch error {
        case .proxyAuthenticationRequired:
            return .network(
                "\(proxy) asked for credentials (407 Proxy Authentication Required): give them in the proxy URL, "
                    + "http://user:password@host:port, or check the ones given"
            )
        case .httpProxyHandshakeTimeout:
            return .timedOut("\(proxy) did not answer the CONNECT request in time")
        default:
            return .network(
                "\(proxy) refused to open a tunnel to the origin (its CONNECT answer was not 200): "
                    + "it may not allow the origin or its port, or may need credentials"
            )
        }
    }

    /// A TLS failure as a message that names the certificate problem and the setting that
    /// fixes it, or `nil` when `error` is not a TLS failure.
    static func tlsFailure(_ error: any Error) -> ImageError? {
        let detail: String
        switch error {
        case let error as NIOSSLError:
            detail = String(describing: error)
        case let error as NIOSSLExtraError:
            detail = String(describing: error)
        case let error as BoringSSLError:
            detail = String(describing: error)
        default:
            return nil
        }
        let lowered = detail.lowercased()
        let hint: String
        if lowered.contains("certificate_verify_failed") || lowered.contains("certificate verify failed") {
            hint = "the origin's certificate is not signed by a trusted authority (or has expired): "
                + "add its CA with DownloaderConfig.tls (webimage: --ca-file), or allow invalid certificates for this load"
        } else if lowered.contains("hostname") || lowered.contains("failedtovalidatehostname") {
            hint = "the origin's certificate does not name the host in the URL"
        } else if lowered.contains("certificate_required") || lowered.contains("alert_handshake_failure")
            || lowered.contains("alert_bad_certificate") || lowered.contains("alert_unknown_ca")
        {
            hint = "the origin refused the handshake, most likely because it requires a client certificate it trusts: "
                + "set one with DownloaderTLS.clientIdentity (webimage: --client-cert and --client-key)"
        } else {
            hint = "the TLS handshake failed"
        }
        return .network("\(hint) [\(detail)]")
    }
}
