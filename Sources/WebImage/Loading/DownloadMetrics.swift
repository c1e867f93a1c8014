/// How one download went: its time in the queue, waiting for its answer and receiving its
/// body, the bytes, and the redirects and retries it took.
///
/// The phases are measured on the downloader's side. AsyncHTTPClient does not report the
/// steps of a connection (the name lookup, the TCP connect, the TLS handshake) or its wait
/// for a connection from its pool, so they are part of ``waitingForResponse`` when the
/// download opened a connection, and absent when it reused one kept alive. Callers that
/// joined a download share its metrics.
public struct DownloadMetrics: Sendable, Equatable {
    /// From the download's submission until it left the queue: the wait for a free slot,
    /// for the host's limit, for the rate limit.
    public var queueing: Duration
    /// From leaving the queue until the final response's head arrived: the connection
    /// when one was opened, the request, the source's answer, every redirect, and every
    /// failed attempt and wait before the last.
    public var waitingForResponse: Duration
    /// From the final head to the body's last byte.
    public var receivingBody: Duration
    /// The body's bytes as received (before a decryptor).
    public var bytes: Int
    /// Redirects followed by the attempt that answered.
    public var redirects: Int
    /// Attempts made after the first (``RetryPolicy``).
    public var retries: Int

    /// Creates metrics.
    public init(queueing: Duration, waitingForResponse: Duration, receivingBody: Duration, bytes: Int, redirects: Int, retries: Int) {
        self.queueing = queueing
        self.waitingForResponse = waitingForResponse
        self.receivingBody = receivingBody
        self.bytes = bytes
        self.redirects = redirects
        self.retries = retries
    }

    /// The whole download: ``queueing``, ``waitingForResponse`` and ``receivingBody``.
    public var total: Duration { queueing + waitingForResponse + receivingBody }
}
