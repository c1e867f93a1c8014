extension ProxyError {
    /// What kind of failure an error is: the short fixed text a client gets for it unless
    /// development errors are on (``ServerConfig/Responses/developmentErrors``), imgproxy's public
    /// message for the same case. The text says nothing of the network, the files or the
    /// credentials behind the failure; the error's ``ProxyError/message`` goes to the log.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A malformed URL, an option out of range, or a result the URL makes impossible.
        case invalidURL = "Invalid URL"
        /// A wrong or missing signature or secret, an option the server does not allow.
        case forbidden = "Forbidden"
        /// A source the server does not fetch: outside the allowed sources, of a scheme that
        /// is off, or on an address that is refused.
        case invalidSourceURL = "Invalid source URL"
        /// A source that cannot be fetched: unreachable, timed out, an error status.
        case sourceUnreachable = "Source is unreachable"
        /// A source too large, with too many frames, or not an image.
        case invalidSourceImage = "Invalid source image"
        /// A source whose image data cannot be decoded.
        case brokenImage = "Broken or unsupported image"
        /// Every worker busy and the queue full.
        case tooManyRequests = "Too many requests"
        /// The request took longer than the request timeout.
        case timeout = "Timeout"
        /// The request was cancelled.
        case cancelled = "Cancelled"
        /// A path the server does not serve.
        case notFound = "Not found"
        /// A method other than `GET`, `HEAD` (and `OPTIONS` with CORS).
        case methodNotAllowed = "Method not allowed"
        /// Anything else.
        case internalError = "Internal error"

        /// The kind an error of `status` is when nothing more is said.
        init(status: Int) {
            switch status {
            case 400: self = .invalidURL
            case 403: self = .forbidden
            case 404, 410: self = .notFound
            case 405: self = .methodNotAllowed
            case 422: self = .invalidSourceImage
            case 429: self = .tooManyRequests
            case 499: self = .cancelled
            case 502: self = .sourceUnreachable
            case 503, 504: self = .timeout
            default: self = .internalError
            }
        }
    }
}
