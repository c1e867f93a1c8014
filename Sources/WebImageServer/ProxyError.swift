import Hummingbird
import WebImage

/// Why the proxy cannot serve a request: the HTTP status to answer with and a message
/// that says what was wrong and how to fix it — the server's one error type, from the URL
/// parser, the source guard and the pipeline alike.
///
/// Statuses: 400 a malformed URL (bad base64, unknown option, wrong argument
/// count, out-of-range value, unsupported extension…); 403 a missing or wrong signature or
/// secret, a security option or a processing option the server does not allow in URLs,
/// a source address that is not allowed, or a source (S3) refusing the server's
/// credentials; 404 a source outside the allowlist or a
/// non-http(s) scheme, a URL past its `expires` time (as imgproxy answers), a source
/// answering 404 (a 410 is passed on); 422 a source too large (bytes or pixels), with too many frames, or
/// not an image, or an output that cannot fit the memory budget; 429 every worker busy and the queue full; 502 a source unreachable or
/// answering an error; 504 a source or request that timed out; 500 a server configuration
/// error (a signing key that is not hex) or anything else.
///
/// Under the imgproxy profile (``ServerProfile/imgproxy``) the status is imgproxy's where it
/// answers differently (``imgproxyStatus``): 404 for a malformed URL, a refused source
/// address, an option outside the allowed ones, or a source that cannot be reached or
/// answers nonsense; the source's own 4xx; 503 for a request that timed out; 499 for one
/// cancelled.
///
/// A Hummingbird `HTTPResponseError`: thrown from a route, it is answered as plain text
/// (see ``response(from:context:)``), and the middleware in between sees it as an error.
public struct ProxyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status the server answers with.
    public var status: HTTPResponse.Status
    /// The full diagnostic: what was wrong and how to fix it. It is logged, and answered
    /// only with development errors on: it may name the source's addresses, files or
    /// credentials.
    public var message: String
    /// The status imgproxy answers the same case with, when it differs from ``status``.
    public var imgproxyStatus: HTTPResponse.Status?
    /// What kind of failure this is: the short text a client gets by default.
    public var kind: Kind

    /// Creates an error with an HTTP status code and a message, imgproxy's status for the
    /// case when it differs, and its kind (by default, the usual kind of `status`).
    public init(status: Int, message: String, imgproxyStatus: Int? = nil, kind: Kind? = nil) {
        self.status = HTTPResponse.Status(code: status)
        self.message = message
        self.imgproxyStatus = imgproxyStatus.map { HTTPResponse.Status(code: $0) }
        self.kind = kind ?? Kind(status: status)
    }

    /// The error as the server answers it under `profile`.
    public func answered(under profile: ServerProfile) -> ProxyError {
        guard profile == .imgproxy, let imgproxyStatus else { return self }
        var error = self
        error.status = imgproxyStatus
        error.imgproxyStatus = nil
        return error
    }

    /// The same error with another message.
    func withMessage(_ message: String) -> ProxyError {
        var error = self
        error.message = message
        return error
    }

    /// `"<status code>: <message>"`.
    public var description: String { "\(status.code): \(message)" }

    /// A malformed URL (400; imgproxy's 404).
    static func badRequest(_ message: String) -> ProxyError {
        ProxyError(status: 400, message: message, imgproxyStatus: 404)
    }

    /// A missing or wrong signature, or a security option not allowed in URLs (403).
    static func forbidden(_ message: String) -> ProxyError {
        ProxyError(status: 403, message: message)
    }

    /// The status and message for a pipeline error.
    init(_ error: ImageError) {
        switch error {
        case .invalidURL:
            self.init(status: 400, message: error.description)
        case .forbiddenSource(let reason):
            self.init(status: 403, message: "source refused: \(reason)", imgproxyStatus: 404, kind: .invalidSourceURL)
        case .invalidStatusCode(404):
            self.init(status: 404, message: "source not found: the source answered HTTP 404", kind: .sourceUnreachable)
        case .invalidStatusCode(410):
            // Passed on, as imgproxy passes a source's 4xx on: gone for good, not just missing.
            self.init(status: 410, message: "source gone: the source answered HTTP 410", kind: .sourceUnreachable)
        case .invalidStatusCode(let code):
            // imgproxy passes a source's 4xx on, and answers 502 for anything else.
            self.init(status: 502, message: "source error: the source answered HTTP \(code)", imgproxyStatus: (400..<500).contains(code) ? code : nil, kind: .sourceUnreachable)
        case .bodyTooLarge(let limit):
            self.init(status: 422, message: "source too large: more than \(limit) bytes (max source bytes)")
        case .imageTooLarge(let pixels, let limit):
            self.init(status: 422, message: "source too large: \(pixels) pixels, more than the limit of \(limit) (max source resolution)")
        case .badImageData:
            self.init(status: 422, message: "source is not a usable image: \(error.description)", kind: .brokenImage)
        case .invalidContentType, .untrustedFormat:
            self.init(status: 422, message: "source is not a usable image: \(error.description)")
        case .invalidTransform, .fileSizeLimitUnreachable:
            self.init(status: 422, message: error.description, kind: .invalidURL)
        case .timedOut(let reason):
            self.init(status: 504, message: "source timed out: \(reason)", kind: .sourceUnreachable)
        case .network(let reason):
            self.init(status: 502, message: "source unreachable: \(reason)", imgproxyStatus: 404)
        case .invalidResponse(let reason):
            self.init(status: 502, message: "source sent an invalid response: \(reason)", imgproxyStatus: 404)
        case .blockedURL:
            self.init(status: 422, message: error.description, kind: .sourceUnreachable)
        case .notFound(let reason):
            self.init(status: 404, message: "source not found: \(reason)", kind: .sourceUnreachable)
        case .accessDenied(let reason):
            self.init(status: 403, message: "source denied access: \(reason)", kind: .sourceUnreachable)
        case .credentialsUnavailable(let reason):
            // The server's own credentials failed, not the client's request: a bad gateway.
            self.init(status: 502, message: "no credentials for the source: \(reason)", imgproxyStatus: 404, kind: .sourceUnreachable)
        case .memoryBudgetExceeded:
            // imgproxy answers an over-limit source (its resolution) with 422 too.
            self.init(status: 422, message: "output too large: \(error.description)", kind: .invalidURL)
        case .overloaded:
            self.init(status: 429, message: "too many requests: every worker is busy and the queue is full; retry later")
        case .cancelled:
            self.init(status: 503, message: "the request was cancelled (the server is shutting down or the request timed out)", imgproxyStatus: 499, kind: .cancelled)
        case .encodingFailed, .cacheFailure, .invalidDownloadOperation, .cacheNotModified, .notInCache, .invalidRequest:
            self.init(status: 500, message: "internal error: \(error.description)")
        }
    }
}
