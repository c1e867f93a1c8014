import Foundation

/// One caller's place in a download. Cancelling it detaches only this caller: it
/// completes with ``ImageError/cancelled`` at once, and the transfer goes on for any
/// other callers; the last caller's cancel stops the transfer.
public struct DownloadToken: Sendable {
    /// The URL being downloaded.
    public let url: URL
    let subscription: SharedWorkPool<String, DownloadOperation>.Subscription

    /// Detaches this caller. Does nothing when it already completed.
    public func cancel() {
        subscription.cancel()
    }
}
