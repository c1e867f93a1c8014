import Foundation

/// Something that happened to a download, as SDWebImage's download notifications report,
/// or a variant the manager made.
///
/// For one transfer the order is: ``started(url:)``,
/// ``receivedResponse(url:statusCode:headers:)``, ``stopped(url:)``, then
/// ``finished(url:bytes:)`` when it succeeded. A failed or cancelled transfer stops without
/// finishing. ``variantMade(url:bytes:sourceCacheType:downloadedBytes:)`` comes from ``ImageManager/events``, once per variant made (however
/// many requests shared it, and also when every one of them had left);
/// ``backgroundWorkExpired(url:deadline:)`` when work that went on in the background
/// (``ImageRequest/Options/continueInBackground``) is stopped at its deadline.
public enum ImageEvent: Sendable, Equatable {
    /// A request for `url` was sent (once per transfer; redirects do not repeat it).
    case started(url: URL)
    /// The final response's head arrived (after any redirects).
    case receivedResponse(url: URL, statusCode: Int, headers: [String: String])
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

    /// The URL the event is about.
    public var url: URL {
        switch self {
        case .started(let url), .receivedResponse(let url, _, _), .stopped(let url), .finished(let url, _),
             .variantMade(let url, _, _, _), .backgroundWorkExpired(let url, _): url
        }
    }
}
