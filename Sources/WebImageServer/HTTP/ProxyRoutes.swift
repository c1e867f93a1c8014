import Hummingbird

/// The proxy's routes: `/health`, `/metrics`, the playground (`/`, its script and style)
/// when it is on, and every other path a proxy path, `/info/…` included.
struct ProxyRoutes: Sendable {
    let responder: ProxyResponder
    /// The playground served at `/`; `nil` when it is off.
    let playground: PlaygroundPage?
    /// Another path answered like `/health`, if any.
    var healthCheckPath: String?
    /// The prefix every path starts with (`""`: none); the proxy paths are under it too.
    var pathPrefix = ""
    /// Whether `/metrics` is served here (not when it has a listener of its own).
    var servesMetrics = true

    /// The answer to `/` and `/favicon.ico` without the playground.
    static let notFound = ProxyError(status: 404, message: "not found: ask for /<signature>/<options>/<source>")

    /// Adds the routes, for `GET` and `HEAD`, to `router`.
    func add<Context: RequestContext>(to router: Router<Context>) {
        let responder = responder
        let image: @Sendable (Request, Context) async throws -> Response = { request, context in
            try await responder.image(request, context: context)
        }
        func route(_ unprefixed: String, _ handler: @escaping @Sendable (Request, Context) async throws -> Response) {
            let path = unprefixed == "/" && !pathPrefix.isEmpty ? pathPrefix : pathPrefix + unprefixed
            router.get(RouterPath(stringLiteral: path), use: handler)
            router.head(RouterPath(stringLiteral: path), use: handler)
            // A proxy path may start with any segment, and the router does not fall back from
            // a fixed segment that matched to the catch-all when the rest does not match: the
            // paths under a fixed one are proxy paths too.
            if unprefixed != "/" {
                router.get(RouterPath(stringLiteral: path + "/**"), use: image)
                router.head(RouterPath(stringLiteral: path + "/**"), use: image)
            }
        }
        route("/health") { _, _ in responder.health() }
        if let healthCheckPath, healthCheckPath != "/health" { route(healthCheckPath) { _, _ in responder.health() } }
        if servesMetrics { route("/metrics") { request, context in try responder.metricsPage(request, context: context) } }
        if let playground {
            route("/") { request, _ in ProxyResponses.playground(playground.page, request: request) }
            route(PlaygroundPage.scriptPath) { request, _ in ProxyResponses.playground(PlaygroundPage.script, request: request) }
            route(PlaygroundPage.stylePath) { request, _ in ProxyResponses.playground(PlaygroundPage.style, request: request) }
        } else {
            route("/") { _, _ in throw Self.notFound }
        }
        route("/favicon.ico") { _, _ in throw Self.notFound }
        if !pathPrefix.isEmpty {
            // The prefix is a fixed segment too: the proxy paths under it need their own route.
            router.get(RouterPath(stringLiteral: pathPrefix + "/**"), use: image)
            router.head(RouterPath(stringLiteral: pathPrefix + "/**"), use: image)
        }
        router.get("**", use: image)
        router.head("**", use: image)
    }
}
