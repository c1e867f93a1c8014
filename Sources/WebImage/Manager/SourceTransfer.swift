/// The response a loaded source came with and how its download went, kept by reference so
/// that a result without one (every cache hit) holds only a `nil`.
final class SourceTransfer: Sendable {
    let head: DownloadResponseHead
    let metrics: DownloadMetrics?

    init(head: DownloadResponseHead, metrics: DownloadMetrics?) {
        self.head = head
        self.metrics = metrics
    }
}
