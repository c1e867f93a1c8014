/// How long the making of a variant spent in each of its steps, as a server's metrics
/// report them (imgproxy's queue, download and processing spans).
///
/// A variant is made in a ``WorkLimiter`` slot once its source is in: the source is loaded
/// first (downloaded, or read from the source cache), then the making waits for a slot,
/// then it decodes, transforms and encodes in the slot.
public struct VariantTimings: Sendable, Equatable {
    /// From the start of the making until its source was in and it asked for a slot: the
    /// download, or the source cache's read.
    public var loading: Duration
    /// Waiting in the limiter's queue for a slot.
    public var waiting: Duration
    /// In the slot: decode, transform, encode, and the disk cache's write on the coding thread.
    public var making: Duration

    /// Creates timings.
    public init(loading: Duration, waiting: Duration, making: Duration) {
        self.loading = loading
        self.waiting = waiting
        self.making = making
    }
}
