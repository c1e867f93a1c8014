import Hummingbird

/// Answers a request that is neither `GET` nor `HEAD` with 405 (and `Allow: GET, HEAD`),
/// whatever its path: Hummingbird's router answers a method a route lacks with 404.
struct AllowedMethodsMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            throw ProxyError(status: 405, message: "only GET and HEAD are served")
        }
        return try await next(request, context)
    }
}
