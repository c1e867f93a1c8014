import Hummingbird
import WebImageLocking

/// The proxy's request context: Hummingbird's core context, and what the responder found
/// out about the request for the middleware around it (where its image came from).
struct ProxyRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Set by ``ProxyResponder``, read by ``RequestLogMiddleware`` after it. A reference:
    /// middleware and responder each get a copy of the context.
    let outcome = RequestOutcome()

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }
}

/// What served a request: `memory`, `disk` or `miss` for an image, `-` for anything else.
final class RequestOutcome: Sendable {
    private let label = InlineLocked("-")

    /// Where the image came from.
    var cache: String {
        get { label.withLock { $0 } }
        set { label.withLock { $0 = newValue } }
    }
}
