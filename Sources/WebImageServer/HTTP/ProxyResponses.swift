import Hummingbird
import NIOCore

/// The headers every response of the proxy carries, and its responses that are not images:
/// plain text (errors, `/health`), the landing page and the playground's files.
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
        page(text, status: status, contentType: "text/plain; charset=utf-8", cacheControl: "no-store")
    }

    /// `HEAD` on a proxy path under imgproxy's profile: 200, as imgproxy answers it, without
    /// the image being made.
    static var headWithoutWork: Response {
        var headers = securityHeaders
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers)
    }

    /// `GET /` without the playground: a short page saying that the proxy is running and
    /// what it answers.
    static var landing: Response {
        page(landingPage, status: .ok, contentType: "text/html; charset=utf-8", cacheControl: "no-cache")
    }

    /// The body of ``landing``.
    static let landingPage = """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>WebImage</title></head>
        <body><p>WebImage is running. Ask for /&lt;signature&gt;/&lt;options&gt;/&lt;source&gt;.</p></body></html>

        """

    /// `body` with the security headers, its type, caching and length.
    private static func page(_ body: String, status: HTTPResponse.Status, contentType: String, cacheControl: String) -> Response {
        var headers = securityHeaders
        headers[.contentType] = contentType
        headers[.cacheControl] = cacheControl
        let buffer = ByteBuffer(string: body)
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
