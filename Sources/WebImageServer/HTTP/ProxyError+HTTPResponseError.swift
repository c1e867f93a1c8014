import HTTPTypes
import Hummingbird
import NIOCore

extension ProxyError: HTTPResponseError {
    /// The error as the client gets it: the message as plain text, with the security headers,
    /// `Cache-Control: no-store` and the request's ID in `X-Request-ID` (the log lines of the
    /// request carry it too); a 405 names the methods served in `Allow`.
    public func response(from request: Request, context: some RequestContext) -> Response {
        var response = ProxyResponses.text(message + "\n", status: status)
        response.headers[Self.requestIDField] = context.id
        if status == .methodNotAllowed { response.headers[.allow] = "GET, HEAD" }
        return response
    }

    /// `X-Request-ID`, as imgproxy names it.
    static let requestIDField = HTTPField.Name("X-Request-ID")!
}
