import Hummingbird

/// The request context of the proxy's routes: Hummingbird's own, and the deadline
/// ``RequestTimeoutMiddleware`` gives an image request.
struct ProxyRequestContext: RequestContext {
    /// When an image request has waited long enough for its work.
    struct Deadline: Sendable {
        /// The moment it times out.
        var instant: ContinuousClock.Instant
        /// The request timeout it was set from, for the 504's message.
        var timeout: Duration
    }

    var coreContext: CoreRequestContextStorage
    /// The request's deadline; `nil`: its work is waited for as long as it takes.
    var deadline: Deadline?

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }
}
