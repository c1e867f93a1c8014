import Hummingbird
import Tracing

/// Puts every request in a server span of `tracer`: a child of the incoming W3C
/// `traceparent`, if any, current while the request is answered (so the library's cache,
/// download, decode, transform, encode and store spans are its children). Without a
/// tracer it passes requests on untouched.
struct RequestTracingMiddleware: RouterMiddleware {
    typealias Context = ProxyRequestContext

    /// `nil`: tracing is off.
    let tracer: (any Tracer)?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let tracer else { return try await next(request, context) }
        var parent = ServiceContext.current ?? .topLevel
        tracer.extract(request.headers, into: &parent, using: RequestHeaderExtractor())
        // OpenTelemetry's HTTP conventions name a server span without a route by its method.
        let span: any Span = tracer.startSpan(request.method.rawValue, context: parent, ofKind: .server)
        defer { span.end() }
        span.attributes["http.request.method"] = request.method.rawValue
        span.attributes["url.path"] = request.uri.path
        if let userAgent = request.headers[.userAgent] { span.attributes["user_agent.original"] = userAgent }
        do {
            let response = try await ServiceContext.$current.withValue(span.context) {
                try await next(request, context)
            }
            span.attributes["http.response.status_code"] = Int(response.status.code)
            span.attributes["webimage.cache"] = context.outcome.cache
            // A server span is an error for 5xx only: 4xx are the client's.
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error, message: response.status.reasonPhrase)) }
            return response
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: "\(error)"))
            throw error
        }
    }
}

/// Reads trace headers from a Hummingbird request.
struct RequestHeaderExtractor: Extractor {
    func extract(key: String, from headers: HTTPFields) -> String? {
        headers.first { $0.name.canonicalName == key }?.value
    }
}
