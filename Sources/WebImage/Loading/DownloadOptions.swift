import Foundation
import NIOHTTP1

/// Per-download choices, on top of the downloader's ``DownloaderConfig``.
public struct DownloadOptions: Sendable {
    /// Queue position when download slots are busy.
    public var priority: DownloadPriority = .normal
    /// Send cookies stored for the host and store the response's `Set-Cookie`.
    public var handleCookies = false
    /// Accept self-signed and otherwise invalid TLS certificates.
    public var allowInvalidSSLCertificates = false
    /// Deliver everything received so far with each progress report (progressive loading).
    public var wantsPartialData = false
    /// Extra headers for this download (e.g. `If-None-Match` for a revalidation).
    public var headers: HTTPHeaders = [:]
    /// Replaces the downloader's request modifier for this download.
    public var requestModifier: RequestModifier?
    /// Replaces the downloader's response modifier for this download.
    public var responseModifier: ResponseModifier?
    /// Replaces the downloader's decryptor for this download.
    public var decryptor: Decryptor?
    /// Replaces the downloader's ``DownloaderConfig/maxBodySize`` for this download.
    public var maxBodySize: Int?
    /// Replaces the downloader's ``DownloaderConfig/retryPolicy`` for this download;
    /// ``RetryPolicy/never`` turns retries off. Callers that join a download already under
    /// way share its policy: that of the caller that started it.
    public var retryPolicy: RetryPolicy?
    /// Replaces the downloader's ``DownloaderConfig/resumePolicy`` for this download;
    /// ``ResumePolicy/never`` makes every retry start over. Callers that join a download
    /// already under way share its policy: that of the caller that started it.
    public var resumePolicy: ResumePolicy?
    /// Return a response whose status is not one of ``DownloaderConfig/acceptableStatusCodes``
    /// with its body (within the body size limit), instead of failing with
    /// ``ImageError/invalidStatusCode(_:)``: for a loader that reads the error a server
    /// explains in its body, as ``S3ImageLoader`` reads S3's XML error. Such a response skips
    /// the content-type check, the decryptor and the empty-body check. Default off.
    public var returnsErrorResponses = false
    /// Values of the caller's own for a loader of its own to read (``ImageRequest/userInfo``);
    /// the downloader does not read them, and they are not part of a download's identity.
    public var userInfo: [String: any Sendable] = [:]

    /// Creates default options.
    public init(priority: DownloadPriority = .normal) {
        self.priority = priority
    }

    /// The key under which downloads of `url` coalesce: only those asking for the same
    /// transfer share one. With default options it is the URL's string itself (the usual
    /// case, built without an allocation); otherwise the options follow after a space,
    /// which a URL's string never contains, so no URL can pose as another's variant.
    func coalescingKey(for url: URL) -> String {
        let variant = coalescingVariant
        return variant.isEmpty ? url.absoluteString : url.absoluteString + " " + variant
    }

    /// What in these options changes the transfer; empty for the defaults.
    private var coalescingVariant: String {
        var key = allowInvalidSSLCertificates ? "insecure|" : ""
        if handleCookies { key += "cookies|" }
        if let maxBodySize { key += "max-body=\(maxBodySize)|" }
        if returnsErrorResponses { key += "error-responses|" }
        for (name, value) in headers { key += "\(name.lowercased())=\(value)|" }
        if requestModifier != nil || responseModifier != nil || decryptor != nil {
            // Closures cannot be compared: a download with its own modifiers never joins another.
            key += "custom-\(UUID().uuidString)|"
        }
        return key
    }
}
