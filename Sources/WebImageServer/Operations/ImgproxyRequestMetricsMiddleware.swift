import Dispatch
import Hummingbird

/// Counts each request of the image routes in ``ImgproxyMetrics`` as imgproxy counts its
/// processing requests: on arrival, and when answered with its status, its latency and, for
/// an error, its category. It is the image routes' outermost middleware, as imgproxy's
/// monitoring wraps its secret check: a request refused for its secret is counted too.
struct ImgproxyRequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ImgproxyMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        metrics.requestStarted()
        func elapsed() -> Duration { .nanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start)) }
        do {
            let response = try await next(request, context)
            metrics.requestEnded(status: response.status.code, error: nil, after: elapsed())
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.requestEnded(status: status, error: error as? ProxyError, after: elapsed())
            throw error
        }
    }
}
