import Hummingbird

/// A responder with a middleware in front of it: the way the proxy puts request logging
/// and metrics around its ``ProxyResponder`` without a router.
struct MiddlewareResponder<Middleware: RouterMiddleware, Next: HTTPResponder>: HTTPResponder where Middleware.Context == Next.Context {
    let middleware: Middleware
    let next: Next

    func respond(to request: Request, context: Next.Context) async throws -> Response {
        try await middleware.handle(request, context: context) { request, context in
            try await next.respond(to: request, context: context)
        }
    }
}

extension RouterMiddleware {
    /// `responder` with this middleware in front of it.
    func wrapping<Next: HTTPResponder>(_ responder: Next) -> MiddlewareResponder<Self, Next> where Next.Context == Context {
        MiddlewareResponder(middleware: self, next: responder)
    }
}
