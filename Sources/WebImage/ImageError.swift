import Foundation

/// The one error every WebImage layer throws.
///
/// The cases mirror SDWebImage's `SDWebImageError` codes where one exists, and add
/// the limits a server needs. Each message says what went wrong and what to do.
public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is missing, empty, or not one any loader can handle.
    case invalidURL(String)
    /// The bytes are not an image WebImage can decode (truncated, garbled, empty, HTML…).
    /// The associated value is the decoder's reason.
    case badImageData(String)
    /// The image declares more pixels (width × height × frames) than the configured limit.
    case imageTooLarge(pixels: Int, limit: Int)
    /// The format needs a libvips loader marked untrusted (ImageMagick, PDF, …), and
    /// untrusted loaders are not enabled.
    case untrustedFormat(String)
    /// Encoding failed, or the requested format cannot be written.
    case encodingFailed(String)
    /// No quality setting produced an encoding within the requested maximum size.
    case fileSizeLimitUnreachable(maxBytes: Int, smallest: Int)
    /// A cache read or write failed at the file-system level.
    case cacheFailure(String)
    /// The URL is blocked because it failed permanently before.
    case blockedURL(URL)
    /// The request was cancelled before it completed.
    case cancelled
    /// The transfer stopped making progress or ran past its deadline.
    case timedOut(String)
    /// The server answered with a status code outside the acceptable range.
    case invalidStatusCode(Int)
    /// The server answered with a content type that is not accepted.
    case invalidContentType(String)
    /// A response modifier rejected the response, or the response is malformed.
    case invalidResponse(String)
    /// A request modifier rejected the request, or the request could not be built.
    case invalidDownloadOperation(String)
    /// The response body is larger than the configured maximum.
    case bodyTooLarge(limit: Int)
    /// A revalidation found the cached image still current (HTTP 304).
    case cacheNotModified
    /// The network failed (connection refused, reset, DNS…). Never blocks the URL.
    case network(String)
    /// The image is not in the cache and the request forbade loading it (`fromCacheOnly`).
    case notInCache(String)
    /// A transformer's parameters do not fit the image (a crop outside it, a zero size, a
    /// non-positive sigma…). Never blocks the URL: the image itself is fine.
    case invalidTransform(String)
    /// A source guard refused the URL or one of its redirects: its address is loopback,
    /// private, link-local or otherwise not allowed (the image proxy's SSRF protection).
    case forbiddenSource(String)
    /// Every worker is busy and the queue of waiting work is full (``WorkLimiter``): the
    /// work was turned away at once rather than queued without bound.
    case overloaded(String)
    /// The source does not exist: the file of a `file:` URL missing or unreadable
    /// (``FileLoader``), a file missing under a ``RootedFileLoader``'s root, or a path that
    /// cannot name a file there (`..`, a directory). The reason names the path.
    case notFound(String)
    /// The source refused the credentials or the signature the request carried, or they do
    /// not grant access to it (an S3 `403`): the associated value has the server's reason
    /// and what to check. Never blocks the URL: the credentials can be fixed.
    case accessDenied(String)
    /// The credentials a signed request needs could not be had: a credentials source (the
    /// environment, a shared credentials or config file, a web identity token, the container
    /// or instance metadata endpoint, an assumed role) is misconfigured or did not answer.
    /// The reason names the source, what failed and what to fix. Never blocks the URL: the
    /// source is fine, its credentials are not.
    case credentialsUnavailable(String)
    /// A field of an ``ImageRequest`` (or the option or context knob it was built from), or
    /// of the ``ImageEncodeOptions`` or ``VariantEncoding`` an encode is given, cannot apply
    /// to what is asked for or is outside its range: `field` names it, `reason` says why and
    /// what to do instead.
    case invalidRequest(field: String, reason: String)
    /// Making the output would hold `needed` bytes at once (its decode, its largest
    /// intermediate image, its encodes: ``MemoryBudget``), more than the whole `budget`:
    /// refused before anything is decoded. Never blocks the URL: a smaller output of the
    /// same source may fit.
    case memoryBudgetExceeded(needed: Int, budget: Int)

    /// A user-facing explanation, including what to change to make the call succeed.
    public var description: String {
        switch self {
        case .invalidURL(let url):
            return url.isEmpty
                ? "invalid URL: the URL is empty; pass an http(s), file or data URL"
                : "invalid URL '\(url)': use an http(s), s3, file or data URL, or add a loader for its scheme"
        case .badImageData(let reason):
            return "bad image data: \(reason)"
        case .imageTooLarge(let pixels, let limit):
            return "image too large: \(pixels) pixels (width × height × frames) exceeds the limit of \(limit); raise maxPixels to allow it"
        case .untrustedFormat(let loader):
            return "the image needs the untrusted libvips loader '\(loader)', which is blocked; enable untrusted loaders only for trusted input"
        case .encodingFailed(let reason):
            return "encoding failed: \(reason)"
        case .fileSizeLimitUnreachable(let maxBytes, let smallest):
            return "cannot encode within \(maxBytes) bytes: the smallest encoding at the lowest quality is \(smallest) bytes; allow more bytes or make the image smaller"
        case .cacheFailure(let reason):
            return "cache failure: \(reason)"
        case .blockedURL(let url):
            return "\(url.absoluteString) failed permanently before and is blocked; pass retryFailed to try it again"
        case .cancelled:
            return "the image load was cancelled"
        case .timedOut(let reason):
            return "timed out: \(reason)"
        case .invalidStatusCode(let code):
            return "the server answered HTTP \(code), which is not an acceptable status code"
        case .invalidContentType(let type):
            return "the server answered with content type '\(type)', which is not an image type accepted here"
        case .invalidResponse(let reason):
            return "invalid response: \(reason)"
        case .invalidDownloadOperation(let reason):
            return "invalid download: \(reason)"
        case .bodyTooLarge(let limit):
            return "the response body is larger than the limit of \(limit) bytes; raise maxBodySize to allow it"
        case .cacheNotModified:
            return "the cached image is still current (HTTP 304 Not Modified)"
        case .network(let reason):
            return "network error: \(reason)"
        case .notInCache(let key):
            return "'\(key)' is not in the cache and fromCacheOnly forbids loading it; drop fromCacheOnly to download it"
        case .invalidTransform(let reason):
            return "cannot transform the image: \(reason)"
        case .forbiddenSource(let reason):
            return "source refused: \(reason)"
        case .overloaded(let reason):
            return "too busy: \(reason); retry later"
        case .notFound(let reason):
            return "not found: \(reason)"
        case .invalidRequest(let field, let reason):
            return "invalid request: \(field) \(reason)"
        case .accessDenied(let reason):
            return "access denied: \(reason)"
        case .credentialsUnavailable(let reason):
            return "no credentials: \(reason)"
        case .memoryBudgetExceeded(let needed, let budget):
            return "making this image would hold \(Self.megabytes(needed)) at once, more than the whole memory budget of \(Self.megabytes(budget)); ask for a smaller output (less enlarging, extending or padding) or raise the budget"
        }
    }

    /// `bytes` in megabytes, one decimal (`12.5 MB`).
    private static func megabytes(_ bytes: Int) -> String {
        let tenths = (Double(bytes) / 100_000).rounded()
        return "\(tenths / 10) MB"
    }
}
