import Hummingbird

/// Gives every request of the routes it is on a deadline, the request timeout from its
/// arrival (``ServerConfig/Limits/requestTimeout``): work the request waits for (a
/// download, decoding, encoding) that is not done by then is left, and the request answers
/// 504 (``ProxyResponder/timedOut(after:)``).
///
/// The deadline is kept in the request's context and the wait for work keeps to it, rather
/// than this middleware racing the whole request against a timer: a memory hit waits for
/// nothing and is answered with no timer at all. A race costs a task group and a sleeping
/// task for each request, which measured 84–86 µs a request on the 2-core machine the
/// benchmarks run on, more than a whole cached request's CPU (about 58 µs).
struct RequestTimeoutMiddleware: RouterMiddleware {
    typealias Context = ProxyRequestContext
    /// The longest a request may take from arrival to response.
    let timeout: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.deadline = .init(instant: .now + timeout, timeout: timeout)
        return try await next(request, context)
    }
}
