import Tracing

/// A span that has ended, as it is exported.
public struct FinishedSpan: Sendable {
    /// The span's trace and span IDs.
    public var identity: SpanIdentity
    /// The parent span's ID; `nil` for a root span.
    public var parentSpanID: String?
    /// The operation, e.g. `GET /insecure/…` or `webimage.decode`.
    public var name: String
    /// The span's kind.
    public var kind: SpanKind
    /// When it started, in nanoseconds since 1970.
    public var startNanoseconds: UInt64
    /// When it ended, in nanoseconds since 1970.
    public var endNanoseconds: UInt64
    /// Its attributes.
    public var attributes: SpanAttributes
    /// Its status; `nil`: unset.
    public var status: SpanStatus?
    /// Its events (an error recorded is an `exception` event).
    public var events: [SpanEvent]

    /// Creates a finished span from its parts.
    public init(
        identity: SpanIdentity, parentSpanID: String?, name: String, kind: SpanKind,
        startNanoseconds: UInt64, endNanoseconds: UInt64, attributes: SpanAttributes = [:],
        status: SpanStatus? = nil, events: [SpanEvent] = []
    ) {
        self.identity = identity
        self.parentSpanID = parentSpanID
        self.name = name
        self.kind = kind
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
        self.attributes = attributes
        self.status = status
        self.events = events
    }
}
