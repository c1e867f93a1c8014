import Hummingbird

/// The proxy's routes: `/health`, `/metrics`, `/` (a landing page, or the playground with
/// its script and style when it is on), and every other path a proxy path, `/info/…`
/// included.
///
/// The image routes ask for the secret when there is one (``BearerSecretMiddleware``) and
/// give each request its deadline (``RequestTimeoutMiddleware``); `/metrics` asks for the
/// secret too. `/health` and the playground ask for neither. Only the image routes are
/// counted as requests in the metrics: probes and scrapes are not.
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
    /// The bearer token the image routes and `/metrics` ask for; `nil`: none.
    var secret: String?
    /// The longest an image request may take from arrival to response.
    var requestTimeout: Duration = .seconds(30)
    /// Whether `HEAD` on a proxy path is answered 200 at once, without the image being made,
    /// as imgproxy answers it; otherwise it gets the headers a `GET` would.
    var headsWithoutWork = false
    /// imgproxy's series, counted for the image routes in place of WebImage's own request
    /// metrics (``RequestMetricsMiddleware``); `nil`: WebImage's.
    var imgproxyMetrics: ImgproxyMetrics?

    /// The answer to `/favicon.ico`, and to a path outside the prefix.
    static let notFound = ProxyError(status: 404, message: "not found: ask for /<signature>/<options>/<source>")

    /// Adds the routes to `router`, as `GET` routes: a router made with
    /// ``headRouterOptions`` answers `HEAD` with them too.
    func add(to router: Router<ProxyRequestContext>) {
        let responder = responder
        let image: @Sendable (Request, ProxyRequestContext) async throws -> Response = { request, context in
            try await responder.image(request, context: context)
        }
        let secured = { (group: RouterGroup<ProxyRequestContext>) in
            if let secret { group.add(middleware: BearerSecretMiddleware(secret: secret, recorder: responder.recorder)) }
            return group
        }
        // The image routes: counted (only they are requests in the metrics), then the secret,
        // so that a refused request gets no deadline.
        let imgproxyMetrics = imgproxyMetrics
        let imageRoutes = { (group: RouterGroup<ProxyRequestContext>) in
            if let imgproxyMetrics {
                group.add(middleware: ImgproxyRequestMetricsMiddleware(metrics: imgproxyMetrics))
            } else {
                group.add(middleware: RequestMetricsMiddleware())
            }
            return secured(group).add(middleware: RequestTimeoutMiddleware(timeout: requestTimeout))
        }
        let headsWithoutWork = headsWithoutWork
        func imageRoute(_ path: RouterPath, on group: RouterGroup<ProxyRequestContext>) {
            group.get(path, use: image)
            if headsWithoutWork { group.head(path) { _, _ in ProxyResponses.headWithoutWork } }
        }
        // Every route is under the prefix; with none, the group is the router's root.
        let routes = router.group(RouterPath(stringLiteral: pathPrefix))
        let images = imageRoutes(routes.group())
        func route(_ path: String, on group: RouterGroup<ProxyRequestContext>? = nil, _ handler: @escaping @Sendable (Request, ProxyRequestContext) async throws -> Response) {
            (group ?? routes).get(RouterPath(stringLiteral: path), use: handler)
            // A proxy path may start with any segment, and the router does not fall back from
            // a fixed segment that matched to the catch-all when the rest does not match: the
            // paths under a fixed one are proxy paths too.
            if path != "/" { imageRoute(RouterPath(stringLiteral: path + "/**"), on: images) }
        }
        route("/health") { _, _ in responder.health() }
        if let healthCheckPath, healthCheckPath != "/health" { route(healthCheckPath) { _, _ in responder.health() } }
        if servesMetrics { route("/metrics", on: secured(routes.group())) { _, _ in responder.metricsPage() } }
        if let playground {
            route("/") { _, _ in ProxyResponses.playground(playground.page) }
            route(PlaygroundPage.scriptPath) { _, _ in ProxyResponses.playground(PlaygroundPage.script) }
            route(PlaygroundPage.stylePath) { _, _ in ProxyResponses.playground(PlaygroundPage.style) }
        } else {
            // Load balancers ask for `/` to see that the server is up, as imgproxy answers it.
            route("/") { _, _ in ProxyResponses.landing }
        }
        route("/favicon.ico") { _, _ in throw Self.notFound }
        imageRoute("**", on: images)
        // A path outside the prefix is answered by the image route too, which refuses it with
        // the proxy's own 404 (counted and logged as every answer is).
        if !pathPrefix.isEmpty { imageRoute("**", on: imageRoutes(router.group())) }
    }

    /// The options of the router the routes are added to: `HEAD` answered by every `GET`
    /// route, with the `GET` response's header fields (`Content-Length` included) and no body.
    static let headRouterOptions: RouterOptions = .autoGenerateHeadEndpoints
}
