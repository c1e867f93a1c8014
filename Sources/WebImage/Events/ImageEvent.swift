import Foundation

/// Something that happened to a download, as SDWebImage's download notifications report,
/// or a variant the manager made.
///
/// For one transfer the order is: ``started(url:)``,
/// ``receivedResponse(url:statusCode:headers:)``, ``stopped(url:)``, then
/// ``finished(url:bytes:)`` when it succeeded. A failed or cancelled transfer stops without
/// finishing. A transfer retried (``RetryPolicy``) reports
/// ``retrying(url:retry:delay:reason:)`` after each failed attempt (after its response, if
/// one came) and before the wait, then the next attempt's response: `started` once, and
/// `stopped` once at the end. A retry that resumes a body cut short (``ResumePolicy``)
/// reports ``resuming(url:fromByte:)`` after its `retrying` and the wait, just before the
/// ranged request goes out. ``variantMade(url:bytes:sourceCacheType:downloadedBytes:)`` comes from ``ImageManager/events``, once per variant made (however
/// many requests shared it, and also when every one of them had left);
/// ``backgroundWorkExpired(url:deadline:)`` when work that went on in the background
/// (``ImageRequest/Options/continueInBackground``) is stopped at its deadline;
/// ``sourceFailed(url:source:reason:next:)`` from ``ImageManager/events`` when a source of
/// a request with ``ImageRequest/alternativeSources`` fails, before its next one is tried.
public enum ImageEvent: Sendable, Equatable {
    /// A request for `url` was sent (once per transfer; redirects do not repeat it).
    case started(url: URL)
    /// The final response's head arrived (after any redirects).
    case receivedResponse(url: URL, statusCode: Int, headers: [String: String])
    /// An attempt failed with `reason` and the transfer tries again after `delay`: retry
    /// number `retry` (from 1) of those ``RetryPolicy/maxRetries`` allows.
    case retrying(url: URL, retry: Int, delay: Duration, reason: ImageError)
    /// The retry that follows asks the source for the rest of the body only, from byte
    /// `fromByte` (the bytes already held), as ``ResumePolicy`` allows; its progress goes on
    /// from there.
    case resuming(url: URL, fromByte: Int)
    /// The transfer ended, for any reason.
    case stopped(url: URL)
    /// The transfer succeeded with `bytes` bytes of body.
    case finished(url: URL, bytes: Int)
    /// An encoded variant of `url` was made (decoded, transformed, encoded), `bytes` long,
    /// from a source that came from `sourceCacheType` (``CacheType/none``: downloaded,
    /// `downloadedBytes` long).
    case variantMade(url: URL, bytes: Int, sourceCacheType: CacheType, downloadedBytes: Int)
    /// Work for `url` that went on after every caller had left
    /// (``ImageRequest/Options/continueInBackground``) was still running `deadline` later
    /// (``ImageManager/backgroundDeadline``) and was cancelled: nothing of it is cached.
    case backgroundWorkExpired(url: URL, deadline: Duration)
    /// A load of `url` with ``ImageRequest/alternativeSources`` failed at `source` (`url`
    /// itself, or one of its alternatives; a custom source as ``ImageSource/url``) with
    /// `reason`, and goes on with the alternative `next`; `nil`: none is left, and the load
    /// fails with the error of `url`'s own source. One per source that failed, in order.
    case sourceFailed(url: URL, source: URL, reason: ImageError, next: URL?)

    /// The URL the event is about.
    public var url: URL {
        switch self {
        case .started(let url), .receivedResponse(let url, _, _), .retrying(let url, _, _, _), .resuming(let url, _), .stopped(let url), .finished(let url, _),
             .variantMade(let url, _, _, _), .backgroundWorkExpired(let url, _), .sourceFailed(let url, _, _, _): url
        }
    }
}
