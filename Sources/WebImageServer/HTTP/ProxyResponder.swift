import Foundation
import Hummingbird
import NIOCore
import WebImage

/// What the proxy's routes answer (``ProxyRoutes``): images for proxy paths,
/// `/health` and `/metrics`.
///
/// An image response carries `Content-Type`, `Content-Length`, `Cache-Control: max-age=<ttl>,
/// public` (no longer than the URL's `expires` leaves, `no-cache` at 0, or the
/// source's own when passed through), an `ETag` and a `Last-Modified` (the served bytes'
/// or the source's, as ``CachingHeaders`` says), `Vary: Accept` when the format was or
/// could have been negotiated, `Content-Disposition` (`inline`, or `attachment` with
/// `return_attachment`) with a file name, a sandboxing `Content-Security-Policy` and
/// `X-Content-Type-Options: nosniff`. A matching `If-None-Match` (or, without one,
/// `If-Modified-Since`) gets 304, and so does one the source answered with 304 when the
/// conditions are sent on. A request that cannot be served throws a ``ProxyError``,
/// answered as plain text with `Cache-Control: no-store`.
///
/// Each answer is recorded (``ResponseRecorder``), and an error is answered under the
/// server's profile with what the client may see of it. The secret and the request
/// timeout are middleware on the image routes (``BearerSecretMiddleware``,
/// ``RequestTimeoutMiddleware``).
struct ProxyResponder: Sendable {
    let pipeline: ProxyPipeline
    let metrics: ServerMetrics
    /// `max-age=<ttl>, public` (`no-cache` for a TTL of 0), made once rather than per response.
    let cacheControl: String
    /// The TTL in seconds: the longest `max-age` answered.
    let ttl: Int
    /// The header fields of the images answered, made once for each.
    let headersCache = ImageHeadersCache()
    /// The prefix proxy paths start with (`""`: none), taken off before parsing.
    let pathPrefix: String
    /// The validators and caching headers answered, and the conditions sent on to sources.
    let caching: CachingHeaders
    /// The server's response settings: client hints, debug headers, the canonical link.
    let responses: ServerConfig.Responses
    /// Records each answer and makes what clients see of errors.
    let recorder: ResponseRecorder
    /// imgproxy's `Vary`, the same for every image answer: `Accept` when any format is
    /// negotiated (auto or enforced WebP, AVIF or JPEG XL), then the client hints' fields when
    /// they are read; `nil` when neither.
    let imgproxyVary: String?
    /// What `/health` says: `ok`, or under imgproxy's profile imgproxy's own words, which
    /// its users' health checks may look for.
    let healthText: String

    typealias Field = ProxyResponses.Field

    /// The responder of a server with `config`: its response and caching settings, its
    /// profile and its path prefix.
    init(pipeline: ProxyPipeline, metrics: ServerMetrics, config: ServerConfig, tracesRequests: Bool = false) {
        responses = config.responses
        caching = CachingHeaders(responses: config.responses)
        pathPrefix = config.listen.pathPrefix ?? ""
        recorder = ResponseRecorder(
            profile: config.profile, developmentErrors: config.responses.developmentErrors, tracesRequests: tracesRequests
        )
        self.pipeline = pipeline
        self.metrics = metrics
        ttl = config.caching.ttl
        cacheControl = Self.cacheControl(maxAge: config.caching.ttl)
        healthText = config.profile == .imgproxy ? "imgproxy is running" : "ok\n"
        let encoding = config.encoding
        let negotiates = encoding.autoWebP || encoding.enforceWebP || encoding.autoAVIF || encoding.enforceAVIF
            || encoding.autoJXL || encoding.enforceJXL
        let fields = (negotiates ? ["Accept"] : []) + (config.responses.enableClientHints ? [ClientHints.varyFields] : [])
        imgproxyVary = fields.isEmpty ? nil : fields.joined(separator: ", ")
    }

    /// `GET /health`: ``healthText``.
    func health() -> Response {
        ProxyResponses.text(healthText, status: .ok)
    }

    /// `GET /metrics`: every metric in the Prometheus text format; under imgproxy's profile
    /// imgproxy's series first (``ImgproxyMetrics``), then WebImage's that imgproxy has none like.
    func metricsPage() -> Response {
        metrics.setQueueDepth(pipeline.limiter?.queued ?? 0)
        if let budget = pipeline.limiter?.memoryBudget { metrics.setMemory(budget) }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let page = (pipeline.imgproxyMetrics?.render() ?? []) + metrics.render()
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: page)))
    }

    /// The image (or details, or ThumbHash) a proxy path asks for, its work waited for no
    /// later than the request's deadline.
    /// - Throws: ``ProxyError`` when the path is malformed or refused, or the image cannot be made.
    func image(_ request: Request, context: ProxyRequestContext) async throws(ProxyError) -> Response {
        do {
            let (response, cache) = try await image(for: request, context: context)
            recorder.record(status: response.status, cache: cache, bytes: response.headers[.contentLength], context: context)
            return response
        } catch {
            throw recorder.refused(error, context: context)
        }
    }

    private func image(for request: Request, context: ProxyRequestContext) async throws(ProxyError) -> (Response, CacheOutcome) {
        var path = request.uri.path
        if !pathPrefix.isEmpty {
            guard path.hasPrefix(pathPrefix + "/") else { throw ProxyRoutes.notFound }
            path.removeFirst(pathPrefix.count)
        }
        let hints = responses.enableClientHints ? ClientHints { request.headers[$0] } : nil
        let resolved = try pipeline.resolve(path: path, accept: request.headers[.accept], hints: hints).get()
        for warning in resolved.request.warnings { context.logger.warning("\(warning)") }
        // A memory hit is answered at once: no task, no timer (the timeout is for work).
        let outcome: ProxyPipeline.Outcome
        if let hit = pipeline.memoryHit(resolved) {
            outcome = hit
        } else {
            let conditions = caching.forwardedConditions(
                ifNoneMatch: request.headers[.ifNoneMatch], ifModifiedSince: request.headers[.ifModifiedSince]
            )
            switch await within(context.deadline, { [pipeline] in await pipeline.serve(resolved, conditions: conditions) }) {
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

    /// The `Vary` of an answer: under WebImage's profile, `Accept` only where this answer's
    /// format was or could have been negotiated, and the client hints only on images; under
    /// imgproxy's, ``imgproxyVary`` on every image answer, as imgproxy writes it.
    private func vary(variesWithAccept: Bool, kind: ProxyResponseKind) -> String? {
        if recorder.profile == .imgproxy { return imgproxyVary }
        return switch (variesWithAccept, responses.enableClientHints && kind == .image) {
        case (true, true): "Accept, " + ClientHints.varyFields
        case (true, false): "Accept"
        case (false, true): ClientHints.varyFields
        case (false, false): nil
        }
    }

    /// Runs `body`, answering 504 when it is not done by `deadline`. The work it started
    /// stops then, unless another request waits for it too. Without a deadline, `body` is
    /// waited for as long as it takes.
    private func within(
        _ deadline: ProxyRequestContext.Deadline?,
        _ body: @escaping @Sendable () async -> Result<ProxyPipeline.Outcome, ProxyError>
    ) async -> Result<ProxyPipeline.Outcome, ProxyError> {
        guard let deadline else { return await body() }
        return await withTaskGroup(of: Result<ProxyPipeline.Outcome, ProxyError>?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(until: deadline.instant)
                return Task.isCancelled ? nil : .failure(Self.timedOut(after: deadline.timeout))
            }
            var outcome: Result<ProxyPipeline.Outcome, ProxyError>?
            while outcome == nil, let next = await group.next() {
                outcome = next
            }
            group.cancelAll()
            return outcome ?? .failure(Self.timedOut(after: deadline.timeout))
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

    /// `max-age=<seconds>, public`, or `no-cache` for 0, as imgproxy writes it.
    static func cacheControl(maxAge: Int) -> String {
        maxAge > 0 ? "max-age=\(maxAge), public" : "no-cache"
    }

    /// - Parameter expires: the URL's `expires` time (Unix seconds): `max-age` never outlives it.
    private func response(for outcome: ProxyPipeline.Outcome, request: Request, expires: Int?) -> Response {
        let variant = outcome.variant
        let canonical = responses.setCanonicalHeader ? Self.canonicalLink(for: outcome) : nil
        var headers = headersCache.headers(for: outcome, canonical: canonical) { makeHeaders(for: outcome, canonical: canonical) }
        // Rare, and different every second: the cached fields get their Cache-Control replaced.
        var maxAge = maxAge(until: expires)
        var status = HTTPResponse.Status.ok
        if let replaced = outcome.replacedError, let fallback = pipeline.fallback {
            status = fallback.statusCode > 0 ? HTTPResponse.Status(code: fallback.statusCode) : replaced.answered(under: recorder.profile).status
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
        if responses.enableDebugHeaders, outcome.kind == .image {
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
