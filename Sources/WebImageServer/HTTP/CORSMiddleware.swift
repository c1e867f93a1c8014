import Hummingbird

/// CORS for the proxy's paths, as imgproxy's `IMGPROXY_ALLOW_ORIGIN`: every response of a
/// proxy path, errors included, carries `Access-Control-Allow-Origin` with the configured
/// origin and `Access-Control-Allow-Methods: GET, OPTIONS`, and an `OPTIONS` request to any
/// path (a preflight) is answered 200 with them and no body. The server's own paths
/// (`/health`, `/metrics`, `/`, `/favicon.ico`, the playground's) carry none.
struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The headers added.
    let fields: HTTPFields
    /// The paths that get no CORS headers, with the path prefix.
    let ownPaths: Set<String>

    /// CORS with `origin`, the server's own paths under `pathPrefix` (`""`: none) and its
    /// extra health check path left out.
    init(origin: String, pathPrefix: String, healthCheckPath: String?) {
        var fields = HTTPFields()
        fields[.accessControlAllowOrigin] = origin
        fields[.accessControlAllowMethods] = "GET, OPTIONS"
        self.fields = fields
        var own = ["/health", "/metrics", "/favicon.ico", PlaygroundPage.scriptPath, PlaygroundPage.stylePath] + [healthCheckPath].compactMap { $0 }
        own = own.map { pathPrefix + $0 } + [pathPrefix.isEmpty ? "/" : pathPrefix, pathPrefix + "/"]
        ownPaths = Set(own)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .options { return Response(status: .ok, headers: fields) }
        guard !ownPaths.contains(request.uri.path) else { return try await next(request, context) }
        do {
            var response = try await next(request, context)
            response.headers.append(contentsOf: fields)
            return response
        } catch let error as any HTTPResponseError {
            throw CORSError(base: error, fields: fields)
        }
    }
}

/// An error response of a proxy path with the CORS headers added: the status and body
/// are the error's own.
struct CORSError: HTTPResponseError {
    /// The error as thrown.
    let base: any HTTPResponseError
    /// The CORS headers.
    let fields: HTTPFields

    var status: HTTPResponse.Status { base.status }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try base.response(from: request, context: context)
        response.headers.append(contentsOf: fields)
        return response
    }
}
