import Hummingbird
import NIOCore

/// The headers every response of the proxy carries, and its responses that are not images:
/// plain text (errors, `/health`) and the playground's files.
enum ProxyResponses {
    /// One header field (`HTTPField`, which Hummingbird does not re-export).
    typealias Field = HTTPFields.Element

    /// The `Content-Security-Policy` of every response but the playground's: nothing it
    /// names may load anything or run a script.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

    /// The headers every response starts from (`Content-Security-Policy`, `nosniff`), made once.
    static let securityHeaders: HTTPFields = {
        var headers = HTTPFields()
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        return headers
    }()

    /// `text` as `text/plain`, not to be cached.
    static func text(_ text: String, status: HTTPResponse.Status) -> Response {
        var headers = securityHeaders
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let buffer = ByteBuffer(string: text)
        headers[.contentLength] = String(buffer.readableBytes)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }

    /// A playground file: the security headers with the page's own `Content-Security-Policy`
    /// (see ``PlaygroundPage/contentSecurityPolicy``), revalidated on every load since it
    /// follows the server's configuration.
    static func playground(_ asset: PlaygroundPage.Asset) -> Response {
        var headers = securityHeaders
        headers[.contentSecurityPolicy] = PlaygroundPage.contentSecurityPolicy
        headers[.contentType] = asset.contentType
        headers[.cacheControl] = "no-cache"
        headers[.contentLength] = String(asset.body.readableBytes)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: asset.body))
    }
}
