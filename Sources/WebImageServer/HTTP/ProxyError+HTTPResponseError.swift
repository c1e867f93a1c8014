import Hummingbird
import NIOCore

extension ProxyError: HTTPResponseError {
    /// The error as the client gets it: the message as plain text, with the security headers
    /// and `Cache-Control: no-store`; a 405 names the methods served in `Allow`.
    public func response(from request: Request, context: some RequestContext) -> Response {
        var response = ProxyResponses.text(message + "\n", status: status)
        if status == .methodNotAllowed { response.headers[.allow] = "GET, HEAD" }
        return response
    }
}
