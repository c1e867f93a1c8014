/// When a download's steps happened and what it counted on the way, noted by the transfer
/// as it goes and read into its ``DownloadMetrics`` when it ends.
struct TransferTimeline: Sendable {
    let submitted = ContinuousClock.now
    var started: ContinuousClock.Instant?
    var responseHead: ContinuousClock.Instant?
    var redirects = 0
    var retries = 0

    /// The metrics of a download that ended now with a body of `bytes`.
    func metrics(bytes: Int) -> DownloadMetrics {
        let ended = ContinuousClock.now
        let started = started ?? submitted
        let head = responseHead ?? ended
        return DownloadMetrics(
            queueing: submitted.duration(to: started), waitingForResponse: started.duration(to: head), receivingBody: head.duration(to: ended),
            bytes: bytes, redirects: redirects, retries: retries
        )
    }
}
