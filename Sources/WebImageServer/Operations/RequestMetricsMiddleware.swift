import Hummingbird

/// Counts every request in ``ServerMetrics``: in flight while it runs, then its status and
/// latency.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = ProxyRequestContext

    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        metrics.requestStarted()
        defer { metrics.requestEnded() }
        let response = try await next(request, context)
        metrics.requestFinished(status: Int(response.status.code), duration: ContinuousClock.now - started)
        return response
    }
}
