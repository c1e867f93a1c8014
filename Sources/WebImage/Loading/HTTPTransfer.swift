import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL
import Tracing

/// One HTTP(S) transfer: hop-by-hop redirects (each approved by the hop guard),
/// status and content-type checks, body size limits, progress, the decryptor, retries
/// (``RetryPolicy``), and download events. It throws ``ImageError`` only.
///
/// Two references (everything else is read through them), so a struct: it costs no
/// allocation, and copying it into an async step's frame is two retains.
struct HTTPTransfer: Sendable {
    let environment: TransferEnvironment
    let operation: DownloadOperation

    /// Whether `status` is one of the redirects followed: 301, 302, 303, 307, 308.
    private static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    init(environment: TransferEnvironment, operation: DownloadOperation) {
        self.environment = environment
        self.operation = operation
    }

    // Read through `environment` and `operation` (both classes), so that no step copies
    // the settings or the options whole.
    var config: DownloaderConfig { _read { yield environment.config } }
    var options: DownloadOptions { _read { yield operation.options } }
    var events: ImageEvents { environment.events }
    private var cookies: CookieJar { environment.cookies }
    private var client: HTTPClient { environment.client }

    func run() async throws(ImageError) -> DownloadResponse {
        var started = false
        do throws(ImageError) {
            let response = try await attempts(started: &started)
            events.emit(.stopped(url: operation.url))
            events.emit(.finished(url: operation.url, bytes: response.data.count))
            return response
        } catch {
            if started { events.emit(.stopped(url: operation.url)) }
            // Stopped by the whole-transfer deadline: a timeout, not a caller's cancel.
            if error == .cancelled, operation.deadlinePassed.load(ordering: .sequentiallyConsistent) {
                throw .timedOut("the download of \(operation.url.absoluteString) took longer than \(config.totalTimeout)")
            }
            throw error
        }
    }

    /// Follows redirects to the final response and receives its body, by `deadline`.
    /// `started` is set once the first request went out, so that `stopped` follows only a
    /// `started`; `attempt` records what a retry depends on. With a body held from an
    /// attempt that dropped (`resumption`), the request asks for the rest of it from the URL
    /// that answered.
    func followHops(
        started: inout Bool, attempt: inout Attempt, resumption: inout Resumption, deadline: NIODeadline
    ) async throws(ImageError) -> DownloadResponse {
        let original = operation.url
        let first = resumption.held?.url ?? original
        var current = first
        // Filled on the first redirect only: most transfers have none.
        var visited: Set<String> = []
        var hops = 0
        // What the previous hop's request modifier chose, carried over a redirect that keeps it.
        var method = HTTPMethod.GET
        var body: Data?

        while true {
            try checkCancelled()
            // The hooks are awaited only when set: an async call costs a frame even when it
            // has nothing to wait for.
            if let hopGuard = config.hopGuard { try await approve(current, by: hopGuard) }
            var described = describeRequest(for: current, original: original)
            described.method = method
            described.body = body
            if let held = resumption.held { Self.addRangeHeaders(for: held, to: &described.headers) }
            if let modifier = options.requestModifier ?? config.requestModifier {
                guard let modified = await modifier(described) else {
                    throw .invalidDownloadOperation("the request modifier cancelled the request for \(current.absoluteString)")
                }
                described = modified
            }
            if described.method != .GET { attempt.onlyGET = false }
            let request = makeRequest(from: described)
            let pinned: PinnedClientPool.Lease?
            if config.hopAddress != nil || config.proxy != nil {
                pinned = try await routedClient(for: described.url)
            } else {
                pinned = nil
            }
            // A pinned or proxied hop holds its client until its response is read (or dropped).
            defer { pinned?.end() }
            if !started {
                started = true
                events.emit(.started(url: original))
            }
            let response: HTTPClientResponse
            do {
                response = try await (pinned?.client ?? client).execute(request, deadline: deadline)
            } catch {
                attempt.transportFailure = Self.isTransportFailure(error)
                throw Self.map(error, config: config)
            }
            if options.handleCookies {
                cookies.store(setCookieHeaders: response.headers["set-cookie"], for: current)
            }
            let status = Int(response.status.code)
            if Self.isRedirect(status), let location = response.headers.first(name: "location") {
                guard hops < config.maxRedirects else {
                    throw .invalidResponse("too many redirects: more than \(config.maxRedirects) from \(original.absoluteString)")
                }
                guard let next = URL(string: location, relativeTo: current)?.absoluteURL,
                      let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https"
                else {
                    throw .invalidResponse("redirect to an invalid or non-HTTP location '\(location)'")
                }
                if visited.isEmpty { visited.insert(first.absoluteString) }
                // A POST redirected by 307/308 posts again; anything else becomes a GET.
                if status == 307 || status == 308 {
                    method = described.method
                    body = described.body
                } else {
                    method = described.method == .HEAD ? .HEAD : .GET
                    body = nil
                }
                guard visited.insert(next.absoluteString).inserted else {
                    throw .invalidResponse("redirect loop: \(next.absoluteString) was already visited")
                }
                if let redirectGuard = config.redirectGuard { try await approve(redirectTo: next, from: original, by: redirectGuard) }
                // The redirect's body is dropped unread, which releases its connection.
                hops += 1
                current = next
                continue
            }
            operation.timeline.withLock { timeline in
                timeline.responseHead = .now
                timeline.redirects = hops
            }
            return try await receive(response, from: current, attempt: &attempt, resumption: &resumption, deadline: deadline)
        }
    }

    // MARK: Steps

    /// Asks the redirect guard whether the download of `original` may follow a redirect to `target`.
    private func approve(
        redirectTo target: URL, from original: URL, by redirectGuard: @Sendable (URL, URL) async throws -> Void
    ) async throws(ImageError) {
        do {
            try await redirectGuard(target, original)
        } catch let error as ImageError {
            throw error
        } catch {
            throw .invalidDownloadOperation("the redirect guard refused the redirect to \(target.absoluteString): \(error)")
        }
    }

    /// Asks the hop guard whether `url` may be fetched.
    private func approve(_ url: URL, by hopGuard: @Sendable (URL) async throws -> Void) async throws(ImageError) {
        do {
            try await hopGuard(url)
        } catch let error as ImageError {
            throw error
        } catch {
            throw .invalidDownloadOperation("the source guard refused \(url.absoluteString): \(error)")
        }
    }

    /// The request for `url` as the request modifier sees it: the downloader's and the
    /// options' headers, credentials for the original origin, cookies.
    private func describeRequest(for url: URL, original: URL) -> DownloadRequest {
        var headers = config.headers
        for (name, value) in options.headers { headers.replaceOrAdd(name: name, value: value) }
        // Credentials go to the original origin only (compared only when there are credentials:
        // it re-parses both URLs).
        if let credentials = config.credentials, url == original || Self.sameOrigin(url, original) {
            let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
            headers.replaceOrAdd(name: "Authorization", value: "Basic \(token)")
        }
        if options.handleCookies, let cookie = cookies.header(for: url) {
            headers.replaceOrAdd(name: "Cookie", value: cookie)
        }
        // No keep-alive: the source closes the connection after its response.
        if config.keepAliveTimeout <= .zero { headers.replaceOrAdd(name: "Connection", value: "close") }
        return DownloadRequest(url: url, headers: headers)
    }

    /// AsyncHTTPClient's request for `described` (certificate checks off when the options
    /// allow invalid certificates; the client certificate of ``DownloaderConfig/tls`` is
    /// presented either way).
    private func makeRequest(from described: DownloadRequest) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: described.url.absoluteString)
        request.method = described.method
        request.headers = described.headers
        if let body = described.body {
            request.body = .bytes(ByteBuffer(data: body))
        }
        // The origin learns the trace it is part of (W3C `traceparent`). AsyncHTTPClient
        // writes it when it has a tracer (one bootstrapped before the downloader was made);
        // otherwise the bootstrapped instrument writes it here. Without one there is no context.
        if client.tracer == nil, let context = ServiceContext.current {
            InstrumentationSystem.instrument.inject(context, into: &request.headers, using: TraceHeaderInjector())
        }
        if options.allowInvalidSSLCertificates {
            request.tlsConfiguration = environment.unverifiedTLS
        }
        return request
    }

    /// Checks the final response and receives its body. The answer to a request for the
    /// rest of a held body goes to ``receiveRest(of:_:from:attempt:resumption:deadline:)``,
    /// except a `200`, which replaces the body held.
    private func receive(
        _ response: HTTPClientResponse, from url: URL, attempt: inout Attempt, resumption: inout Resumption, deadline: NIODeadline
    ) async throws(ImageError) -> DownloadResponse {
        if let held = resumption.held {
            switch response.status.code {
            case 206, 416:
                return try await receiveRest(of: held, response, from: url, attempt: &attempt, resumption: &resumption, deadline: deadline)
            case 200:
                // The source changed since, or ignores ranges: its whole body starts again.
                resumption.held = nil
            default:
                // An error retried as usual; the retry asks for the rest again.
                break
            }
        }
        var head = DownloadResponseHead(url: url, statusCode: Int(response.status.code), headers: response.headers)
        if let modifier = options.responseModifier ?? config.responseModifier {
            guard let modified = modifier(head) else {
                throw .invalidResponse("the response modifier rejected the response from \(url.absoluteString)")
            }
            head = modified
        }
        attempt.head = head
        emitReceivedResponse(head)
        if head.statusCode == 304, options.headers.contains(name: "if-none-match") || options.headers.contains(name: "if-modified-since") {
            throw .cacheNotModified
        }
        let succeeded = config.acceptableStatusCodes.contains(head.statusCode)
        guard succeeded || options.returnsErrorResponses else {
            throw .invalidStatusCode(head.statusCode)
        }
        if succeeded, let acceptable = config.acceptableContentTypes {
            let type = head.mediaType ?? ""
            guard Self.contentType(type, isIn: acceptable) else {
                throw .invalidContentType(type.isEmpty ? "(none)" : type)
            }
        }
        let expected = head.contentLength
        if let expected, expected > maxBodySize {
            throw .bodyTooLarge(limit: maxBodySize)
        }
        var data: Data
        if let expected, expected > 0 {
            data = try await collectBody(
                of: response, head: head, length: expected, attempt: &attempt, resumption: &resumption, deadline: deadline
            )
        } else {
            data = try await collectBody(of: response, head: head, attempt: &attempt, resumption: &resumption, deadline: deadline)
        }
        // An error response goes back as the server sent it, for the caller to read.
        guard succeeded else { return DownloadResponse(data: data, head: head) }
        let received = data.count
        if let decryptor = options.decryptor ?? config.decryptor {
            guard let decrypted = decryptor(data, head) else {
                throw .badImageData("the decryptor could not decode the \(data.count) downloaded bytes")
            }
            data = decrypted
        }
        guard !data.isEmpty else {
            throw .badImageData("the server sent an empty body for \(url.absoluteString)")
        }
        var response = DownloadResponse(data: data, head: head)
        response.receivedBytes = received
        return response
    }

    /// Tells the observers of events that `head` arrived.
    func emitReceivedResponse(_ head: DownloadResponseHead) {
        guard events.hasObservers else { return }
        var flat: [String: String] = [:]
        for (name, value) in head.headers { flat[name.lowercased()] = flat[name.lowercased()].map { "\($0), \(value)" } ?? value }
        events.emit(.receivedResponse(url: operation.url, statusCode: head.statusCode, headers: flat))
    }

    /// Collects a body of a declared length into a reusable block (see ``BodyBuffers``): each
    /// byte is copied once, from the client's buffers, and handed over as `Data` without
    /// another copy. Progress is reported after each chunk; partial data is copied out only
    /// for callers that asked for it. A body whose connection dropped is kept in
    /// `resumption` when ``ResumePolicy`` allows its rest to be asked for.
    private func collectBody(
        of response: HTTPClientResponse, head: DownloadResponseHead, length: Int, attempt: inout Attempt,
        resumption: inout Resumption, deadline: NIODeadline
    ) async throws(ImageError) -> Data {
        let buffers = BodyBuffers.shared
        let block = buffers.take(atLeast: length)
        var received = 0
        operation.reportProgress(received: 0, expected: length, partialData: Data())
        do throws(ImageError) {
            try await fill(block, length: length, received: &received, from: response, attempt: &attempt, deadline: deadline)
        } catch {
            if let held = heldBody(from: head, count: received, storage: .block(block), attempt: attempt, resumption: resumption) {
                resumption.held = held
            } else {
                buffers.give(block)
            }
            throw error
        }
        return buffers.data(of: block, count: received)
    }

    /// Copies the body of `response` into `block` after the `received` bytes already in it,
    /// up to `length` bytes in all, reporting progress after each chunk; `received` counts
    /// the bytes in `block`, also when it throws.
    func fill(
        _ block: BodyBuffers.Block, length: Int, received: inout Int, from response: HTTPClientResponse,
        attempt: inout Attempt, deadline: NIODeadline
    ) async throws(ImageError) {
        do {
            for try await chunk in response.body {
                try checkCancelled()
                guard received + chunk.readableBytes <= length else {
                    throw ImageError.invalidResponse("the body is longer than the \(length) bytes its Content-Length declared")
                }
                guard NIODeadline.now() < deadline else {
                    throw ImageError.timedOut("the download of \(operation.url.absoluteString) took longer than \(config.totalTimeout)")
                }
                let offset = received
                chunk.withUnsafeReadableBytes { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
                    (block.pointer + offset).copyMemory(from: base, byteCount: bytes.count)
                }
                received += chunk.readableBytes
                let count = received
                operation.reportProgress(
                    received: count, expected: length, partialData: Data(bytes: block.pointer, count: count)
                )
            }
        } catch {
            attempt.transportFailure = Self.isTransportFailure(error)
            throw Self.map(error, config: config)
        }
        guard received == length else {
            // The connection ended early: another try may get the whole body.
            attempt.transportFailure = true
            throw .invalidResponse("the body ended after \(received) of the \(length) bytes its Content-Length declared")
        }
    }

    /// The download's body limit: its options', else the downloader's.
    var maxBodySize: Int { options.maxBodySize ?? config.maxBodySize }

    /// Collects a body of unknown length as AsyncHTTPClient's own `collect` does: the first
    /// chunk is kept as it came from the client, later ones are appended to it. A body
    /// whose connection dropped is kept in `resumption` when ``ResumePolicy`` allows its
    /// rest to be asked for.
    private func collectBody(
        of response: HTTPClientResponse, head: DownloadResponseHead, attempt: inout Attempt,
        resumption: inout Resumption, deadline: NIODeadline
    ) async throws(ImageError) -> Data {
        var body: ByteBuffer?
        var received = 0
        operation.reportProgress(received: 0, expected: nil, partialData: Data())
        do throws(ImageError) {
            try await accumulate(into: &body, received: &received, length: nil, from: response, attempt: &attempt, deadline: deadline)
        } catch {
            if let body,
               let held = heldBody(from: head, count: received, storage: .buffer(body), attempt: attempt, resumption: resumption) {
                resumption.held = held
            }
            throw error
        }
        // One bulk copy: the `Data` must not pin the client's (possibly much larger) buffers.
        return body.map { Data(buffer: $0, byteTransferStrategy: .copy) } ?? Data()
    }

    /// Appends the body of `response` to `body`, which holds `received` bytes, within the
    /// body limit and, when `length` is given, up to `length` bytes in all, reporting
    /// progress after each chunk; `received` counts the bytes in `body`, also when it throws.
    func accumulate(
        into body: inout ByteBuffer?, received: inout Int, length: Int?, from response: HTTPClientResponse,
        attempt: inout Attempt, deadline: NIODeadline
    ) async throws(ImageError) {
        do {
            for try await chunk in response.body {
                try checkCancelled()
                guard received + chunk.readableBytes <= maxBodySize else {
                    throw ImageError.bodyTooLarge(limit: maxBodySize)
                }
                if let length, received + chunk.readableBytes > length {
                    throw ImageError.invalidResponse("the body is longer than the \(length) bytes its Content-Range declared")
                }
                guard NIODeadline.now() < deadline else {
                    throw ImageError.timedOut("the download of \(operation.url.absoluteString) took longer than \(config.totalTimeout)")
                }
                received += chunk.readableBytes
                if body == nil {
                    body = chunk
                } else {
                    body!.writeImmutableBuffer(chunk)
                }
                operation.reportProgress(
                    received: received, expected: length,
                    partialData: body.map { Data(buffer: $0, byteTransferStrategy: .copy) }
                )
            }
        } catch {
            attempt.transportFailure = Self.isTransportFailure(error)
            throw Self.map(error, config: config)
        }
        if let length, received < length {
            attempt.transportFailure = true
            throw .invalidResponse("the body ended after \(received) of the \(length) bytes its Content-Range declared")
        }
    }

    // MARK: Helpers

    func checkCancelled() throws(ImageError) {
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
            case .proxyAuthenticationRequired, .invalidProxyResponse, .httpProxyHandshakeTimeout:
                return proxyFailure(error, config: config)
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
        if let failure = tlsFailure(error) { return failure }
        if let error = error as? HTTPParserError {
            return .invalidResponse("malformed HTTP response: \(error)")
        }
        return .network(String(describing: error))
    }
}

/// Writes trace headers (`traceparent`, `tracestate`) into a download's request.
private struct TraceHeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
