import Foundation
import Hummingbird
import Logging
import NIOCore
import Tracing
import WebImage

/// What the proxy's routes answer (``ProxyRoutes``): images for proxy paths,
/// `/health` and `/metrics`.
///
/// An image response carries `Content-Type`, `Content-Length`, `Cache-Control: public,
/// max-age=<ttl>` (no longer than the URL's `expires` leaves, `no-cache` at 0, or the
/// source's own when passed through), an `ETag` and a `Last-Modified` (the served bytes'
/// or the source's, as ``CachingHeaders`` says), `Vary: Accept` when the format was or
/// could have been negotiated, `Content-Disposition` (`inline`, or `attachment` with
/// `return_attachment`) with a file name, a sandboxing `Content-Security-Policy` and
/// `X-Content-Type-Options: nosniff`. A matching `If-None-Match` (or, without one,
/// `If-Modified-Since`) gets 304, and so does one the source answered with 304 when the
/// conditions are sent on. A request that cannot be served throws a ``ProxyError``,
/// answered as plain text with `Cache-Control: no-store`.
///
/// Where an image came from (`memory`, `disk`, `miss`) is recorded here, where it is known:
/// on the request's span as `webimage.cache` when requests are traced, and in a `debug`
/// log line with the status and bytes.
struct ProxyResponder: Sendable {
    let pipeline: ProxyPipeline
    let metrics: ServerMetrics
    let requestTimeout: Duration
    /// `public, max-age=<ttl>` (`no-cache` for a TTL of 0), made once rather than per response.
    let cacheControl: String
    /// The TTL in seconds: the longest `max-age` answered.
    let ttl: Int
    /// Whether requests have spans (Hummingbird's `TracingMiddleware` is installed).
    let tracesRequests: Bool
    /// The header fields of the images answered, made once for each.
    let headersCache = ImageHeadersCache()
    /// Whose status codes errors are answered with.
    let profile: ServerProfile
    /// The prefix proxy paths start with (`""`: none), taken off before parsing.
    let pathPrefix: String
    /// The validators and caching headers answered, and the conditions sent on to sources.
    let caching: CachingHeaders
    /// `Bearer <secret>`, the `Authorization` every image request and `/metrics` on the
    /// proxy's port must carry; `nil`: none asked for.
    let authorization: [UInt8]?
    /// The server's settings: the answers read theirs from it (client hints, debug headers,
    /// the canonical link, development errors).
    let settings: ServerConfig

    typealias Field = ProxyResponses.Field

    /// The responder of a server with `settings`, its caching headers from them.
    init(pipeline: ProxyPipeline, metrics: ServerMetrics, settings: ServerConfig, tracesRequests: Bool = false) {
        self.settings = settings
        self.caching = CachingHeaders(
            useETag: settings.useETag, etagBuster: settings.etagBuster, useLastModified: settings.useLastModified,
            lastModifiedBuster: settings.lastModifiedBuster, validators: settings.validators, cacheControlPassthrough: settings.cacheControlPassthrough
        )
        self.pathPrefix = settings.pathPrefix ?? ""
        self.profile = settings.profile
        self.authorization = settings.secret.map { Array("Bearer \($0)".utf8) }
        self.pipeline = pipeline
        self.metrics = metrics
        self.requestTimeout = settings.requestTimeout
        self.ttl = settings.ttl
        self.cacheControl = Self.cacheControl(maxAge: settings.ttl)
        self.tracesRequests = tracesRequests
    }

    /// `GET /health`.
    func health() -> Response {
        ProxyResponses.text("ok\n", status: .ok)
    }

    /// `GET /metrics` on the proxy's port: the metrics, behind the secret when there is one.
    func metricsPage(_ request: Request, context: some RequestContext) throws(ProxyError) -> Response {
        guard let authorization else { return metricsPage() }
        do {
            try Self.check(request.headers[.authorization], against: authorization)
        } catch {
            throw disclosed(error, context: context)
        }
        return metricsPage()
    }

    /// `GET /metrics`: every metric in the Prometheus text format.
    func metricsPage() -> Response {
        metrics.setQueueDepth(pipeline.limiter?.queued ?? 0)
        if let budget = pipeline.limiter?.memoryBudget { metrics.setMemory(budget) }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render())))
    }

    /// The image (or details, or ThumbHash) a proxy path asks for.
    /// - Throws: ``ProxyError`` when the path is malformed or refused, or the image cannot be made.
    func image(_ request: Request, context: some RequestContext) async throws(ProxyError) -> Response {
        do {
            if let authorization { try Self.check(request.headers[.authorization], against: authorization) }
            let (response, cache) = try await image(for: request)
            record(status: response.status, cache: cache, bytes: response.headers[.contentLength], context: context)
            return response
        } catch {
            let answered = error.answered(under: profile)
            record(status: answered.status, cache: nil, bytes: "0", context: context)
            throw disclosed(answered, context: context)
        }
    }

    /// `error` as the client may see it: its kind's short text, unless development errors
    /// are on. The full diagnostic is logged under the request's ID, which the response
    /// carries (``ProxyError/response(from:context:)``).
    func disclosed(_ error: ProxyError, context: some RequestContext) -> ProxyError {
        let level: Logger.Level = error.status.code >= 500 ? .error : .warning
        context.logger.log(level: level, "\(error.status.code) \(error.kind.rawValue): \(error.message)")
        return settings.developmentErrors ? error : error.withMessage(error.kind.rawValue)
    }

    /// Refuses a request whose `Authorization` is not `expected` (403), comparing in time
    /// that does not depend on where the two differ.
    static func check(_ given: String?, against expected: [UInt8]) throws(ProxyError) {
        let given = Array((given ?? "").utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        guard difference == 0 else {
            throw ProxyError(status: 403, message: "forbidden: this server asks for Authorization: Bearer <secret>, and the request's is missing or wrong")
        }
    }

    private func image(for request: Request) async throws(ProxyError) -> (Response, CacheOutcome) {
        var path = request.uri.path
        if !pathPrefix.isEmpty {
            guard path.hasPrefix(pathPrefix + "/") else { throw ProxyRoutes.notFound }
            path.removeFirst(pathPrefix.count)
        }
        let hints = settings.enableClientHints ? ClientHints { request.headers[$0] } : nil
        let resolved = try pipeline.resolve(path: path, accept: request.headers[.accept], hints: hints).get()
        // A memory hit is answered at once: no task, no timer (the timeout is for work).
        let outcome: ProxyPipeline.Outcome
        if let hit = pipeline.memoryHit(resolved) {
            outcome = hit
        } else {
            let conditions = caching.forwardedConditions(
                ifNoneMatch: request.headers[.ifNoneMatch], ifModifiedSince: request.headers[.ifModifiedSince]
            )
            switch await withTimeout({ [pipeline] in await pipeline.serve(resolved, conditions: conditions) }) {
            case .success(let served): outcome = served
            case .failure(let error) where error == ProxyPipeline.sourceNotModified:
                return (notModified(resolved, request: request), .miss)
            case .failure(let error): throw error
            }
        }
        return (response(for: outcome, request: request, expires: resolved.request.options.expires), outcome.cache)
    }

    /// The 304 for a request whose conditions the source answered with 304: nothing was
    /// downloaded or made. It names the entity tag the request sent, when it sent one.
    private func notModified(_ resolved: ProxyPipeline.Resolved, request: Request) -> Response {
        var headers = ProxyResponses.securityHeaders
        headers[.cacheControl] = Self.cacheControl(maxAge: maxAge(until: resolved.request.options.expires) ?? ttl)
        if let ifNoneMatch = request.headers[.ifNoneMatch], !ifNoneMatch.contains(","), ifNoneMatch != "*" {
            headers[.eTag] = ifNoneMatch.trimmingCharacters(in: .whitespaces)
        }
        if let vary = vary(variesWithAccept: resolved.variesWithAccept, kind: resolved.kind) { headers[.vary] = vary }
        return Response(status: .notModified, headers: headers)
    }

    /// The `Vary` of an answer.
    private func vary(variesWithAccept: Bool, kind: ProxyResponseKind) -> String? {
        switch (variesWithAccept, settings.enableClientHints && kind == .image) {
        case (true, true): "Accept, " + ClientHints.varyFields
        case (true, false): "Accept"
        case (false, true): ClientHints.varyFields
        case (false, false): nil
        }
    }

    /// Where the answer came from, on the request's span and in the `debug` log (`bytes` is
    /// read only when the line is logged).
    private func record(
        status: HTTPResponse.Status, cache: CacheOutcome?, bytes: @autoclosure () -> String?, context: some RequestContext
    ) {
        if tracesRequests, let span = InstrumentationSystem.tracer.activeSpan(identifiedBy: ServiceContext.current ?? .topLevel) {
            span.attributes["webimage.cache"] = cache?.rawValue ?? "-"
        }
        context.logger.debug("answered", metadata: [
            "status": "\(status.code)", "cache": "\(cache?.rawValue ?? "-")", "bytes": "\(bytes() ?? "0")",
        ])
    }

    /// Runs `body`, answering 504 when it takes longer than the request timeout. The work
    /// it started stops then, unless another request waits for it too.
    private func withTimeout(
        _ body: @escaping @Sendable () async -> Result<ProxyPipeline.Outcome, ProxyError>
    ) async -> Result<ProxyPipeline.Outcome, ProxyError> {
        let timeout = requestTimeout
        return await withTaskGroup(of: Result<ProxyPipeline.Outcome, ProxyError>?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : .failure(Self.timedOut(after: timeout))
            }
            var outcome: Result<ProxyPipeline.Outcome, ProxyError>?
            while outcome == nil, let next = await group.next() {
                outcome = next
            }
            group.cancelAll()
            return outcome ?? .failure(Self.timedOut(after: timeout))
        }
    }

    /// A request past the request timeout: 504, imgproxy's 503.
    static func timedOut(after timeout: Duration) -> ProxyError {
        ProxyError(status: 504, message: "request timed out after \(timeout)", imgproxyStatus: 503)
    }

    /// The `max-age` a URL's `expires` (Unix seconds) leaves, no longer than the TTL; `nil`
    /// without one.
    private func maxAge(until expires: Int?) -> Int? {
        expires.map { min(ttl, max(0, $0 - Int(Date().timeIntervalSince1970))) }
    }

    /// `public, max-age=<seconds>`, or `no-cache` for 0, as imgproxy answers.
    static func cacheControl(maxAge: Int) -> String {
        maxAge > 0 ? "public, max-age=\(maxAge)" : "no-cache"
    }

    /// - Parameter expires: the URL's `expires` time (Unix seconds): `max-age` never outlives it.
    private func response(for outcome: ProxyPipeline.Outcome, request: Request, expires: Int?) -> Response {
        let variant = outcome.variant
        let canonical = settings.setCanonicalHeader ? Self.canonicalLink(for: outcome) : nil
        var headers = headersCache.headers(for: outcome, canonical: canonical) { makeHeaders(for: outcome, canonical: canonical) }
        // Rare, and different every second: the cached fields get their Cache-Control replaced.
        var maxAge = maxAge(until: expires)
        var status = HTTPResponse.Status.ok
        if let replaced = outcome.replacedError, let fallback = pipeline.fallback {
            status = fallback.statusCode > 0 ? HTTPResponse.Status(code: fallback.statusCode) : replaced.answered(under: profile).status
            if let fallbackTTL = fallback.ttl { maxAge = min(maxAge ?? ttl, fallbackTTL) }
        }
        // The URL's expiry and the fallback's TTL first, then the source's own, then the TTL's.
        let cacheControl = maxAge.map(Self.cacheControl(maxAge:))
            ?? (outcome.replacedError == nil ? caching.passedThroughCacheControl(of: variant) : nil)
        if let cacheControl {
            headers.ok[.cacheControl] = cacheControl
            headers.notModified[.cacheControl] = cacheControl
        }
        if let ifNoneMatch = request.headers[.ifNoneMatch] {
            // If-None-Match decides alone when it is there (RFC 9110 13.1.3).
            // The ETag answered, buster included, as the kept header fields hold it.
            if let etag = headers.ok[.eTag], CachingHeaders.matches(ifNoneMatch, etag: etag) {
                return Response(status: .notModified, headers: headers.notModified)
            }
        } else if let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.date(from:)),
                  let lastModified = caching.lastModified(of: variant), lastModified <= since {
            return Response(status: .notModified, headers: headers.notModified)
        }
        return Response(status: status, headers: headers.ok, body: ResponseBody(byteBuffer: variant.bytes))
    }

    /// `<source>; rel="canonical"` for an image of an http(s) source, as imgproxy's
    /// `IMGPROXY_SET_CANONICAL_HEADER` sends it; `nil` otherwise.
    static func canonicalLink(for outcome: ProxyPipeline.Outcome) -> String? {
        guard outcome.kind == .image, outcome.replacedError == nil, let scheme = outcome.source.scheme?.lowercased(),
              scheme == "http" || scheme == "https"
        else { return nil }
        return "<" + outcome.source.absoluteString + ">; rel=\"canonical\""
    }

    private func makeHeaders(for outcome: ProxyPipeline.Outcome, canonical: String?) -> ImageHeadersCache.Headers {
        let variant = outcome.variant
        // Appended, not assigned: these names are not in the security headers and each
        // comes once, so the result is the same without a search of the fields per header.
        var headers = ProxyResponses.securityHeaders
        headers.append(Field(name: .contentType, value: outcome.kind.contentType ?? variant.format.mimeType))
        headers.append(Field(name: .cacheControl, value: cacheControl))
        if let etag = caching.etag(of: variant) { headers.append(Field(name: .eTag, value: etag)) }
        if let lastModified = caching.lastModified(of: variant) {
            headers.append(Field(name: .lastModified, value: HTTPDate.string(from: lastModified)))
        }
        if let vary = vary(variesWithAccept: outcome.variesWithAccept, kind: outcome.kind) { headers.append(Field(name: .vary, value: vary)) }
        if outcome.kind == .image {
            headers.append(Field(name: .contentDisposition, value: outcome.disposition.value(for: variant.format)))
        }
        if let canonical { headers.append(Field(name: Self.linkHeader, value: canonical)) }
        if settings.enableDebugHeaders, outcome.kind == .image {
            if let source = variant.sourcePixelSize {
                headers.append(Field(name: Self.originWidthHeader, value: String(source.width)))
                headers.append(Field(name: Self.originHeightHeader, value: String(source.height)))
            }
            if let bytes = variant.sourceByteCount { headers.append(Field(name: Self.originLengthHeader, value: String(bytes))) }
            headers.append(Field(name: Self.resultWidthHeader, value: String(variant.pixelSize.width)))
            headers.append(Field(name: Self.resultHeightHeader, value: String(variant.pixelSize.height)))
        }
        if let score = variant.score {
            // Auto quality: what it chose and the SSIM that choice keeps.
            if let quality = variant.quality { headers.append(Field(name: Self.qualityHeader, value: String(quality))) }
            headers.append(Field(name: Self.scoreHeader, value: String(format: "%.4f", score)))
        }
        var ok = headers
        ok.append(Field(name: .contentLength, value: String(variant.count)))
        return ImageHeadersCache.Headers(ok: ok, notModified: headers)
    }

    /// `Link`, naming the source as the image's canonical URL.
    static let linkHeader = Field.Name("Link")!
    /// imgproxy's debug headers: the source's size and length, and the result's size.
    static let originWidthHeader = Field.Name("X-Origin-Width")!
    static let originHeightHeader = Field.Name("X-Origin-Height")!
    static let originLengthHeader = Field.Name("X-Origin-Content-Length")!
    static let resultWidthHeader = Field.Name("X-Result-Width")!
    static let resultHeightHeader = Field.Name("X-Result-Height")!

    /// `X-Quality`: the encoder quality auto quality chose.
    static let qualityHeader = Field.Name("X-Quality")!
    /// `X-Image-Score`: the SSIM of the served image against the image encoded.
    static let scoreHeader = Field.Name("X-Image-Score")!
}
