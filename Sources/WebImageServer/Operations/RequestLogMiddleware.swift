import Hummingbird
import Logging

/// Logs one `info` line per request after it was answered: method, path (at most 300
/// characters), status, where the image came from, bytes and duration.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ProxyRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - started
        context.logger.info("request", metadata: [
            "method": "\(request.method)",
            "path": "\(request.uri.path.prefix(300))",
            "status": "\(response.status.code)",
            "cache": "\(context.outcome.cache)",
            "bytes": "\(response.headers[.contentLength] ?? "0")",
            "duration_ms": "\(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000 + Double(elapsed.components.seconds) * 1000)",
        ])
        return response
    }
}
