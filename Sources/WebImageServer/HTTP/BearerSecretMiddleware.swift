import Hummingbird

/// Refuses (403) a request of the routes it is on unless it carries `Authorization: Bearer
/// <secret>` (``ServerConfig/Listen/secret``, imgproxy's `IMGPROXY_SECRET`). The refusal
/// is recorded and disclosed as every answer of the proxy is (``ResponseRecorder``).
struct BearerSecretMiddleware: RouterMiddleware {
    typealias Context = ProxyRequestContext
    /// `Bearer <secret>`, as its bytes.
    let expected: [UInt8]
    /// Records the refusal and makes what the client sees of it.
    let recorder: ResponseRecorder

    /// The middleware asking for `secret`.
    init(secret: String, recorder: ResponseRecorder) {
        expected = Array("Bearer \(secret)".utf8)
        self.recorder = recorder
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            try Self.check(request.headers[.authorization], against: expected)
        } catch {
            throw recorder.refused(error, context: context)
        }
        return try await next(request, context)
    }

    /// Refuses a request whose `Authorization` is not `expected` (403), comparing in time
    /// that does not depend on where the two differ.
    static func check(_ given: String?, against expected: [UInt8]) throws(ProxyError) {
        let given = Array((given ?? "").utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        guard difference == 0 else {
            throw ProxyError(status: 403, message: "forbidden: this server asks for Authorization: Bearer <secret>, and the request's is missing or wrong")
        }
    }
}
