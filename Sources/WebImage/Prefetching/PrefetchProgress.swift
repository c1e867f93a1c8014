import Foundation

/// One step of a prefetch: a request finished loading (or failed), and the counts so far.
///
/// Reported once per request, in the order the loads finish, so ``finishedCount`` rises one
/// by one from 1 to ``totalCount``.
public struct PrefetchProgress: Sendable {
    /// The URL of the request that just finished (``ImageRequest/url``).
    public var url: URL
    /// Where its image came from (`.none` for a download), or why it failed.
    public var outcome: Result<CacheType, ImageError>
    /// Requests finished so far, failed ones included.
    public var finishedCount: Int
    /// Requests that failed so far (a subset of ``finishedCount``).
    public var skippedCount: Int
    /// Requests in the prefetch.
    public var totalCount: Int

    /// Creates a progress report.
    public init(url: URL, outcome: Result<CacheType, ImageError>, finishedCount: Int, skippedCount: Int, totalCount: Int) {
        self.url = url
        self.outcome = outcome
        self.finishedCount = finishedCount
        self.skippedCount = skippedCount
        self.totalCount = totalCount
    }
}

/// How a prefetch ended: SDWebImagePrefetcher's `(finishedCount, skippedCount)`.
public struct PrefetchResult: Sendable, Hashable {
    /// Requests that finished, failed ones included. Equal to ``totalCount`` unless cancelled.
    public var finishedCount: Int
    /// Requests that failed (a subset of ``finishedCount``).
    public var skippedCount: Int
    /// Requests in the prefetch.
    public var totalCount: Int
    /// Whether the prefetch was cancelled before every request finished.
    public var isCancelled: Bool

    /// Creates a result.
    public init(finishedCount: Int, skippedCount: Int, totalCount: Int, isCancelled: Bool = false) {
        self.finishedCount = finishedCount
        self.skippedCount = skippedCount
        self.totalCount = totalCount
        self.isCancelled = isCancelled
    }
}
