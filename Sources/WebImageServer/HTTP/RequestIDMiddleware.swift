import HTTPTypes
import Hummingbird

/// Gives every response the request's ID in `X-Request-ID`, as imgproxy does: the client's
/// own `X-Request-ID` when it is a plain token (letters, digits, `-` and `_`, at most 128),
/// otherwise the ID Hummingbird made. The request's log lines and its error answers carry
/// the same ID.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The longest client ID taken.
    static var maxLength: Int { 128 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let given = request.headers[ProxyError.requestIDField], Self.isToken(given) {
            context.logger[metadataKey: "hb.request.id"] = .string(given)
        }
        let id = context.id
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Answered here, so that the answer carries the ID this context holds.
            response = try error.response(from: request, context: context)
        }
        response.headers[ProxyError.requestIDField] = id
        return response
    }

    /// Whether `id` is a plain token a log line and a header can carry as it is.
    static func isToken(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maxLength
            && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }
    }
}
