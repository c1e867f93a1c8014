import Foundation
import Hummingbird
import Logging
import NIOCore

/// Answers every HTTP request: `GET /health`, `GET /metrics`, the playground (`/`, its
/// script and style) when it is on, and proxy paths (SPEC S6).
///
/// An image response carries `Content-Type`, `Content-Length`, `Cache-Control: public,
/// max-age=<ttl>`, a strong `ETag` (unless turned off), `Last-Modified`, `Vary: Accept` when the format was
/// or could have been negotiated, `Content-Disposition` (`inline`, or `attachment` with
/// `return_attachment`) with a file name, a
/// sandboxing `Content-Security-Policy` and `X-Content-Type-Options: nosniff`; a matching
/// `If-None-Match` gets 304. Errors are plain text with `Cache-Control: no-store`.
///
/// Logging and request metrics are the middleware's (``RequestLogMiddleware``,
/// ``RequestMetricsMiddleware``); this type tells them where an image came from through
/// ``ProxyRequestContext/outcome``.
struct ProxyResponder: HTTPResponder {
    typealias Context = ProxyRequestContext

    let pipeline: ProxyPipeline
    let metrics: ServerMetrics
    let requestTimeout: Duration
    /// `public, max-age=<ttl>`, made once rather than per response.
    let cacheControl: String
    /// Whether images carry an `ETag` and `If-None-Match` is answered.
    let useETag: Bool
    /// The playground served at `/`; `nil` when it is off.
    let playground: PlaygroundPage?

    /// One header field (`HTTPField`, which Hummingbird does not re-export).
    typealias Field = HTTPFields.Element

    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

    /// The headers every response starts from (`Content-Security-Policy`, `nosniff`), made once.
    static let securityHeaders: HTTPFields = {
        var headers = HTTPFields()
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        return headers
    }()

    init(
        pipeline: ProxyPipeline, metrics: ServerMetrics, ttl: Int, requestTimeout: Duration, useETag: Bool = true,
        playground: PlaygroundPage? = nil
    ) {
        self.useETag = useETag
        self.playground = playground
        self.pipeline = pipeline
        self.metrics = metrics
        self.requestTimeout = requestTimeout
        self.cacheControl = "public, max-age=\(ttl)"
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        let (response, cache) = await route(request, path: request.uri.path)
        if cache != "-" { context.outcome.cache = cache }
        return response
    }

    private func route(_ request: Request, path: String) async -> (Response, String) {
        guard request.method == .get || request.method == .head else {
            var response = Self.error(ProxyError(status: 405, message: "only GET and HEAD are served"))
            response.headers[.allow] = "GET, HEAD"
            return (response, "-")
        }
        if let playground, let asset = playground.asset(at: path) {
            return (Self.playgroundResponse(asset, request: request), "-")
        }
        switch path {
        case "/health":
            return (Self.text("ok\n", status: .ok), "-")
        case "/metrics":
            metrics.setQueueDepth(pipeline.limiter?.queued ?? 0)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return (Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render()))), "-")
        case "/", "/favicon.ico":
            return (Self.error(ProxyError(status: 404, message: "not found: ask for /<signature>/<options>/<source>")), "-")
        default:
            break
        }
        let resolved: ProxyPipeline.Resolved
        switch pipeline.resolve(path: path, accept: request.headers[.accept]) {
        case .success(let value): resolved = value
        case .failure(let failure): return (Self.error(failure), "-")
        }
        // A memory hit is answered at once: no task, no timer (the timeout is for work).
        if let outcome = pipeline.memoryHit(resolved) {
            return (image(outcome, request: request), outcome.cache)
        }
        let result = await withTimeout { [pipeline] in await pipeline.serve(resolved) }
        switch result {
        case .success(let outcome):
            return (image(outcome, request: request), outcome.cache)
        case .failure(let failure):
            return (Self.error(failure), "-")
        }
    }

    /// Runs `body`, answering 504 when it takes longer than the request timeout. The work
    /// it started goes on (a variant being made is still cached for the next request).
    private func withTimeout(
        _ body: @escaping @Sendable () async -> Result<ProxyPipeline.Outcome, ProxyError>
    ) async -> Result<ProxyPipeline.Outcome, ProxyError> {
        let timeout = requestTimeout
        return await withTaskGroup(of: Result<ProxyPipeline.Outcome, ProxyError>?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : .failure(ProxyError(status: 504, message: "request timed out after \(timeout)"))
            }
            var outcome: Result<ProxyPipeline.Outcome, ProxyError>?
            while outcome == nil, let next = await group.next() {
                outcome = next
            }
            group.cancelAll()
            return outcome ?? .failure(ProxyError(status: 504, message: "request timed out after \(timeout)"))
        }
    }

    private func image(_ outcome: ProxyPipeline.Outcome, request: Request) -> Response {
        let variant = outcome.variant
        // Appended, not assigned: these names are not in the security headers and each
        // comes once, so the result is the same without a search of the fields per header.
        var headers = Self.securityHeaders
        headers.append(Field(name: .contentType, value: outcome.kind.contentType ?? variant.format.mimeType))
        headers.append(Field(name: .cacheControl, value: cacheControl))
        if useETag { headers.append(Field(name: .eTag, value: variant.etag)) }
        headers.append(Field(name: .lastModified, value: HTTPDate.string(from: variant.createdAt)))
        if outcome.variesWithAccept { headers.append(Field(name: .vary, value: "Accept")) }
        if outcome.kind == .image {
            headers.append(Field(name: .contentDisposition, value: outcome.disposition.value(for: variant.format)))
        }
        if let score = variant.score {
            // Auto quality: what it chose and the SSIM that choice keeps.
            if let quality = variant.quality { headers.append(Field(name: Self.qualityHeader, value: String(quality))) }
            headers.append(Field(name: Self.scoreHeader, value: String(format: "%.4f", score)))
        }
        if useETag, let ifNoneMatch = request.headers[.ifNoneMatch], Self.matches(ifNoneMatch, etag: variant.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers.append(Field(name: .contentLength, value: String(variant.count)))
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: variant.bytes)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `X-Quality`: the encoder quality auto quality chose.
    static let qualityHeader = Field.Name("X-Quality")!
    /// `X-Image-Score`: the SSIM of the served image against the image encoded.
    static let scoreHeader = Field.Name("X-Image-Score")!

    /// A playground file: the security headers with the page's own `Content-Security-Policy`
    /// (see ``PlaygroundPage/contentSecurityPolicy``), revalidated on every load since it
    /// follows the server's configuration.
    static func playgroundResponse(_ asset: PlaygroundPage.Asset, request: Request) -> Response {
        var headers = securityHeaders
        headers[.contentSecurityPolicy] = PlaygroundPage.contentSecurityPolicy
        headers[.contentType] = asset.contentType
        headers[.cacheControl] = "no-cache"
        headers[.contentLength] = String(asset.body.readableBytes)
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: asset.body)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, as RFC 9110 asks for GET).
    static func matches(_ ifNoneMatch: String, etag: String) -> Bool {
        let strip: (Substring) -> Substring = { $0.hasPrefix("W/") ? $0.dropFirst(2) : $0 }
        return ifNoneMatch.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || strip(Substring(tag)) == strip(Substring(etag))
        }
    }

    static func error(_ failure: ProxyError) -> Response {
        text(failure.message + "\n", status: HTTPResponse.Status(code: failure.status))
    }

    static func text(_ text: String, status: HTTPResponse.Status) -> Response {
        var headers = securityHeaders
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let buffer = ByteBuffer(string: text)
        headers[.contentLength] = String(buffer.readableBytes)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }
}
