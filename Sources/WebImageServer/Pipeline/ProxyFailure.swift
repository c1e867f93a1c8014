import WebImage

/// A request that cannot be served: the status and a message for the response body.
///
/// Statuses (SPEC S4, S3): 400 malformed URL; 403 bad signature or a source address that is
/// not allowed; 404 a source outside the allowlist or a non-http(s) scheme, an expired
/// URL, a source answering 404/410; 422 a source too large (bytes or pixels), with too
/// many frames, or not an image; 429 queue full; 502 source unreachable or answering an
/// error; 504 source or request timed out; 500 anything else.
struct ProxyFailure: Error, Sendable, Equatable {
    var status: Int
    var message: String

    init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    /// The status and message for a pipeline error.
    init(_ error: ImageError) {
        switch error {
        case .invalidURL:
            self.init(status: 400, message: error.description)
        case .forbiddenSource(let reason):
            self.init(status: 403, message: "source refused: \(reason)")
        case .invalidStatusCode(let code) where code == 404 || code == 410:
            self.init(status: 404, message: "source not found: the source answered HTTP \(code)")
        case .invalidStatusCode(let code):
            self.init(status: 502, message: "source error: the source answered HTTP \(code)")
        case .bodyTooLarge(let limit):
            self.init(status: 422, message: "source too large: more than \(limit) bytes (max source bytes)")
        case .imageTooLarge(let pixels, let limit):
            self.init(status: 422, message: "source too large: \(pixels) pixels, more than the limit of \(limit) (max source resolution)")
        case .tooManyFrames(let frames, let limit):
            self.init(status: 422, message: "source has \(frames) frames, more than the limit of \(limit) (max animation frames)")
        case .badImageData, .invalidContentType, .untrustedFormat:
            self.init(status: 422, message: "source is not a usable image: \(error.description)")
        case .invalidTransform, .fileSizeLimitUnreachable:
            self.init(status: 422, message: error.description)
        case .timedOut(let reason):
            self.init(status: 504, message: "source timed out: \(reason)")
        case .network(let reason):
            self.init(status: 502, message: "source unreachable: \(reason)")
        case .invalidResponse(let reason):
            self.init(status: 502, message: "source sent an invalid response: \(reason)")
        case .blockedURL:
            self.init(status: 422, message: error.description)
        case .overloaded:
            self.init(status: 429, message: "too many requests: every worker is busy and the queue is full; retry later")
        case .cancelled:
            self.init(status: 503, message: "the request was cancelled (the server is shutting down or the request timed out)")
        case .encodingFailed, .cacheFailure, .invalidDownloadOperation, .cacheNotModified, .notInCache:
            self.init(status: 500, message: "internal error: \(error.description)")
        }
    }
}
