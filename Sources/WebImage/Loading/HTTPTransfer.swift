import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP(S) transfer: hop-by-hop redirects (each approved by the hop guard),
/// status and content-type checks, body size limits, progress, the decryptor, and
/// download events. It throws ``ImageError`` only.
struct HTTPTransfer {
    let client: HTTPClient
    /// The configuration of `client`, from which a hop pinned to an address
    /// (``DownloaderConfig/hopAddress``) makes a client of its own.
    let clientConfiguration: HTTPClient.Configuration
    let config: DownloaderConfig
    let options: DownloadOptions
    let events: ImageEvents
    let cookies: CookieJar
    let operation: DownloadOperation

    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    func run() async throws(ImageError) -> DownloadResponse {
        let started = Flag()
        do throws(ImageError) {
            let response = try await followHops(started: started)
            events.emit(.stopped(url: operation.url))
            events.emit(.finished(url: operation.url, bytes: response.data.count))
            return response
        } catch {
            if started.isSet { events.emit(.stopped(url: operation.url)) }
            throw error
        }
    }

    /// Set once the first request went out, so that `stopped` follows only a `started`.
    private final class Flag {
        var isSet = false
    }

    private func followHops(started: Flag) async throws(ImageError) -> DownloadResponse {
        let original = operation.url
        var current = original
        var visited: Set<String> = [original.absoluteString]
        var hops = 0
        let deadline = NIODeadline.now() + TimeAmount(config.totalTimeout)

        while true {
            try checkCancelled()
            try await approve(current)
            let hopClient = try await pinnedClient(for: current)
            // A pinned hop's own client lives until its response is read (or dropped).
            defer { if let hopClient { Self.shutDown(hopClient) } }
            let request = try await makeRequest(for: current, sameHostAsOriginal: Self.sameOrigin(current, original))
            if !started.isSet {
                started.isSet = true
                events.emit(.started(url: original))
            }
            let response: HTTPClientResponse
            do {
                response = try await (hopClient ?? client).execute(request, deadline: deadline)
            } catch {
                throw Self.map(error, config: config)
            }
            if options.handleCookies {
                cookies.store(setCookieHeaders: response.headers["set-cookie"], for: current)
            }
            let status = Int(response.status.code)
            if Self.redirectStatuses.contains(status), let location = response.headers.first(name: "location") {
                guard hops < config.maxRedirects else {
                    throw .invalidResponse("too many redirects: more than \(config.maxRedirects) from \(original.absoluteString)")
                }
                guard let next = URL(string: location, relativeTo: current)?.absoluteURL,
                      let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https"
                else {
                    throw .invalidResponse("redirect to an invalid or non-HTTP location '\(location)'")
                }
                guard visited.insert(next.absoluteString).inserted else {
                    throw .invalidResponse("redirect loop: \(next.absoluteString) was already visited")
                }
                // The redirect's body is dropped unread, which releases its connection.
                hops += 1
                current = next
                continue
            }
            return try await receive(response, from: current, deadline: deadline)
        }
    }

    // MARK: Steps

    private func approve(_ url: URL) async throws(ImageError) {
        guard let hopGuard = config.hopGuard else { return }
        do {
            try await hopGuard(url)
        } catch let error as ImageError {
            throw error
        } catch {
            throw .invalidDownloadOperation("the source guard refused \(url.absoluteString): \(error)")
        }
    }

    /// A client that connects to the address ``DownloaderConfig/hopAddress`` chose for
    /// `url` (AsyncHTTPClient's `dnsOverride` keeps the host name for `Host`, SNI and the
    /// certificate check), or `nil` to use the shared client.
    private func pinnedClient(for url: URL) async throws(ImageError) -> HTTPClient? {
        guard let hopAddress = config.hopAddress, let host = url.host, !host.isEmpty else { return nil }
        let address: String?
        do {
            address = try await hopAddress(url)
        } catch let error as ImageError {
            throw error
        } catch {
            throw .invalidDownloadOperation("the source guard refused \(url.absoluteString): \(error)")
        }
        // URL.host keeps the brackets of an IPv6 literal; AsyncHTTPClient matches without them.
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let address, address != bareHost else { return nil }
        var configuration = clientConfiguration
        configuration.dnsOverride = [bareHost: address]
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    /// Shuts a one-hop client down without waiting: its only request has ended.
    private static func shutDown(_ client: HTTPClient) {
        client.shutdown { _ in }
    }

    private func makeRequest(for url: URL, sameHostAsOriginal: Bool) async throws(ImageError) -> HTTPClientRequest {
        var headers = config.headers
        for (name, value) in options.headers { headers.replaceOrAdd(name: name, value: value) }
        if let credentials = config.credentials, sameHostAsOriginal {
            let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
            headers.replaceOrAdd(name: "Authorization", value: "Basic \(token)")
        }
        if options.handleCookies, let cookie = cookies.header(for: url) {
            headers.replaceOrAdd(name: "Cookie", value: cookie)
        }
        var described = DownloadRequest(url: url, headers: headers)
        if let modifier = options.requestModifier ?? config.requestModifier {
            guard let modified = await modifier(described) else {
                throw .invalidDownloadOperation("the request modifier cancelled the request for \(url.absoluteString)")
            }
            described = modified
        }
        var request = HTTPClientRequest(url: described.url.absoluteString)
        request.method = .GET
        request.headers = described.headers
        if options.allowInvalidSSLCertificates {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            request.tlsConfiguration = tls
        }
        return request
    }

    private func receive(_ response: HTTPClientResponse, from url: URL, deadline: NIODeadline) async throws(ImageError) -> DownloadResponse {
        var head = DownloadResponseHead(url: url, statusCode: Int(response.status.code), headers: response.headers)
        if let modifier = options.responseModifier ?? config.responseModifier {
            guard let modified = modifier(head) else {
                throw .invalidResponse("the response modifier rejected the response from \(url.absoluteString)")
            }
            head = modified
        }
        if events.hasObservers {
            var flat: [String: String] = [:]
            for (name, value) in head.headers { flat[name.lowercased()] = flat[name.lowercased()].map { "\($0), \(value)" } ?? value }
            events.emit(.receivedResponse(url: operation.url, statusCode: head.statusCode, headers: flat))
        }
        let revalidating = options.headers.contains(name: "if-none-match") || options.headers.contains(name: "if-modified-since")
        if head.statusCode == 304 && revalidating {
            throw .cacheNotModified
        }
        guard config.acceptableStatusCodes.contains(head.statusCode) else {
            throw .invalidStatusCode(head.statusCode)
        }
        if let acceptable = config.acceptableContentTypes {
            let type = head.mediaType ?? ""
            guard Self.contentType(type, isIn: acceptable) else {
                throw .invalidContentType(type.isEmpty ? "(none)" : type)
            }
        }
        let expected = head.contentLength
        if let expected, expected > config.maxBodySize {
            throw .bodyTooLarge(limit: config.maxBodySize)
        }
        var body = ByteBuffer()
        if let expected { body.reserveCapacity(expected) }
        operation.reportProgress(received: 0, expected: expected, partialData: Data())
        do {
            for try await chunk in response.body {
                try checkCancelled()
                guard body.readableBytes + chunk.readableBytes <= config.maxBodySize else {
                    throw ImageError.bodyTooLarge(limit: config.maxBodySize)
                }
                guard NIODeadline.now() < deadline else {
                    throw ImageError.timedOut("the download of \(operation.url.absoluteString) took longer than \(config.totalTimeout)")
                }
                body.writeImmutableBuffer(chunk)
                let snapshot = body
                operation.reportProgress(
                    received: body.readableBytes, expected: expected,
                    partialData: Data(buffer: snapshot, byteTransferStrategy: .copy)
                )
            }
        } catch {
            throw Self.map(error, config: config)
        }
        if let expected, body.readableBytes != expected {
            throw .invalidResponse("the body ended after \(body.readableBytes) of the \(expected) bytes its Content-Length declared")
        }
        // One bulk copy (Data(ByteBufferView) would copy byte by byte).
        var data = Data(buffer: body, byteTransferStrategy: .copy)
        if let decryptor = options.decryptor ?? config.decryptor {
            guard let decrypted = decryptor(data, head) else {
                throw .badImageData("the decryptor could not decode the \(data.count) downloaded bytes")
            }
            data = decrypted
        }
        guard !data.isEmpty else {
            throw .badImageData("the server sent an empty body for \(url.absoluteString)")
        }
        return DownloadResponse(data: data, head: head)
    }

    // MARK: Helpers

    private func checkCancelled() throws(ImageError) {
        if Task.isCancelled { throw .cancelled }
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }

    static func contentType(_ type: String, isIn acceptable: Set<String>) -> Bool {
        if acceptable.contains(type) || acceptable.contains("*/*") { return true }
        guard let family = type.split(separator: "/").first else { return false }
        return acceptable.contains("\(family)/*")
    }

    /// Maps client and channel errors to ``ImageError``: timeouts to `timedOut`, the rest
    /// of the network to `network` (never blocked as a failed URL), cancellation to `cancelled`.
    static func map(_ error: any Error, config: DownloaderConfig) -> ImageError {
        if let error = error as? ImageError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout: return .timedOut("no data arrived for \(config.idleTimeout)")
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return .timedOut("connecting took longer than \(config.connectTimeout)")
            case .deadlineExceeded: return .timedOut("the download took longer than \(config.totalTimeout)")
            case .cancelled: return .cancelled
            case .remoteConnectionClosed: return .network("the server closed the connection before the response was complete")
            default: return .network(String(describing: error))
            }
        }
        if let error = error as? NIOConnectionError {
            var reasons = error.connectionErrors.map { "\($0.target): \($0.error)" }
            if let dns = error.dnsAError { reasons.append("DNS A: \(dns)") }
            if let dns = error.dnsAAAAError { reasons.append("DNS AAAA: \(dns)") }
            let detail = reasons.joined(separator: "; ")
            return .network("cannot connect to \(error.host):\(error.port)" + (detail.isEmpty ? "" : " (\(detail))"))
        }
        if let error = error as? IOError {
            return .network("\(String(cString: strerror(error.errnoCode))) (errno \(error.errnoCode))")
        }
        if let error = error as? HTTPParserError {
            return .invalidResponse("malformed HTTP response: \(error)")
        }
        return .network(String(describing: error))
    }
}
