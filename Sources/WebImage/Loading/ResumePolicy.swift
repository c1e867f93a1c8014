import Foundation

/// When a download whose connection dropped in the middle of its body continues from the
/// byte where it stopped, instead of fetching the whole body again.
///
/// A dropped transfer resumes when all of these hold:
/// - its ``RetryPolicy`` retries it: the resume is one of the policy's retries, after the
///   same wait, and needs ``RetryPolicy/retriesTransportFailures``. It is the one retry
///   allowed after body bytes reached a caller's progress;
/// - it was a `GET` answered `200` with `Accept-Ranges: bytes` and a validator: a strong
///   `ETag`, or, without any `ETag`, a `Last-Modified` at least one second before the
///   response's `Date`. A weak `ETag` (`W/"…"`) cannot guard a range, and with one the date
///   is not used either;
/// - the connection closed, reset or went idle (``DownloaderConfig/idleTimeout``) after
///   some of the body arrived, and the body's declared `Content-Length`, or the bytes
///   received, reach ``threshold``.
///
/// The resumed request goes to the URL that answered (after redirects), through the hop
/// guard and the request modifier like any hop, with `Range: bytes=<received>-` and
/// `If-Range: <validator>`, and is reported as ``ImageEvent/resuming(url:fromByte:)``
/// after the retry's ``ImageEvent/retrying(url:retry:delay:reason:)``. Its answer decides:
/// - `206 Partial Content` whose `Content-Range` starts at the byte held and runs to the end
///   of the same body: the bytes are appended, and progress goes on from the bytes held;
/// - `200`: the source changed (or ignores ranges), and its new body is downloaded from the
///   start. Progress starts again from zero, the one case where it goes back;
/// - a `206` that does not continue the body held, or `416 Range Not Satisfiable`: the
///   bytes held are dropped and the next retry, if the policy has one left, starts over
///   without a range (progress starts again from zero); with none left the download fails
///   with ``ImageError/invalidResponse(_:)`` saying what the source answered. Later drops
///   of that download are not resumed.
///
/// The finished download is the whole body with the head of the first `200` (after the
/// response modifier), its `Content-Length` that of the whole body; the decryptor sees
/// the whole body once, and ``DownloaderConfig/maxBodySize`` bounds the whole body.
///
/// Set one on ``DownloaderConfig/resumePolicy`` for every download, or on
/// ``DownloadOptions/resumePolicy`` for one; ``ResumePolicy/never`` starts every retry over.
///
///     var config = DownloaderConfig()
///     config.resumePolicy = ResumePolicy(threshold: 1024 * 1024)
public struct ResumePolicy: Sendable, Hashable {
    /// The size in bytes from which a dropped body is resumed: its declared
    /// `Content-Length`, or the bytes received when it dropped, reach it; a smaller body is
    /// fetched again from the start. `nil` never resumes. Default 256 KiB.
    public var threshold: Int?

    /// Resumes bodies of 256 KiB or more.
    public static let `default` = ResumePolicy()

    /// Never resumes: a retry fetches the whole body again. (Named so that it cannot be
    /// read as `Optional.none` where a policy is optional, as ``DownloadOptions/resumePolicy`` is.)
    public static let never = ResumePolicy(threshold: nil)

    /// Creates a policy resuming bodies of `threshold` bytes or more (`nil`: never).
    public init(threshold: Int? = 256 * 1024) {
        self.threshold = threshold
    }

    /// Whether a body that dropped after `received` bytes, of `declared` when its length
    /// was declared, is large enough to resume.
    func resumes(received: Int, declared: Int?) -> Bool {
        guard let threshold, received > 0 else { return false }
        return received >= threshold || (declared ?? 0) >= threshold
    }
}
