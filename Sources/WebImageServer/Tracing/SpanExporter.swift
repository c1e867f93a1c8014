/// Where a ``BatchSpanProcessor`` sends its batches.
public protocol SpanExporter: Sendable {
    /// Sends one batch; throws when the receiver did not take it.
    func export(_ spans: [FinishedSpan]) async throws
    /// Releases what the exporter holds; no export follows.
    func shutdown() async
}
