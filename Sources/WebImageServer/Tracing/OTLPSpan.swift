import Tracing
import WebImageLocking

/// One span of an ``OTLPTracer``. A sampled span records its name, attributes, status and
/// events until it ends, then goes to the tracer's processor; an unsampled one records
/// nothing but still carries its trace ID to child spans and origins.
public final class OTLPSpan: Span {
    /// The service context with this span's ``SpanIdentity``.
    public let context: ServiceContext
    private let kind: SpanKind
    private let parentSpanID: String?
    private let startNanoseconds: UInt64
    /// `nil` for an unsampled span.
    private let processor: BatchSpanProcessor?
    private let state: InlineLocked<State>

    private struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        var status: SpanStatus?
        var events: [SpanEvent] = []
        var hasEnded = false
    }

    init(name: String, kind: SpanKind, context: ServiceContext, parentSpanID: String?, startNanoseconds: UInt64, processor: BatchSpanProcessor?) {
        self.context = context
        self.kind = kind
        self.parentSpanID = parentSpanID
        self.startNanoseconds = startNanoseconds
        self.processor = processor
        state = InlineLocked(State(name: name))
    }

    /// The span's operation name.
    public var operationName: String {
        get { state.withLock { $0.name } }
        set { update { $0.name = newValue } }
    }

    /// The span's attributes.
    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { update { $0.attributes = newValue } }
    }

    /// Whether the span is sampled and has not ended.
    public var isRecording: Bool { processor != nil && !state.withLock { $0.hasEnded } }

    /// Sets the status; an `ok` status is final (OpenTelemetry's rule).
    public func setStatus(_ status: SpanStatus) {
        update { state in
            if state.status?.code == .ok { return }
            state.status = status
        }
    }

    /// Adds an event.
    public func addEvent(_ event: SpanEvent) {
        update { $0.events.append(event) }
    }

    /// Records `error` as an `exception` event (the span's status is the caller's to set).
    public func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        var eventAttributes = attributes
        eventAttributes["exception.type"] = "\(type(of: error))"
        eventAttributes["exception.message"] = "\(error)"
        addEvent(SpanEvent(name: "exception", at: instant(), attributes: eventAttributes))
    }

    /// Links are not exported.
    public func addLink(_ link: SpanLink) {}

    /// Ends the span and hands it to the processor; later calls do nothing.
    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        guard let processor, let identity = context.spanIdentity else { return }
        let ended = state.withLock { state -> State? in
            if state.hasEnded { return nil }
            state.hasEnded = true
            return state
        }
        guard let ended else { return }
        processor.enqueue(FinishedSpan(
            identity: identity, parentSpanID: parentSpanID, name: ended.name, kind: kind,
            startNanoseconds: startNanoseconds, endNanoseconds: instant().nanosecondsSinceEpoch,
            attributes: ended.attributes, status: ended.status, events: ended.events
        ))
    }

    /// Changes a recording span's state.
    private func update(_ change: (inout State) -> Void) {
        guard processor != nil else { return }
        state.withLock { state in
            if !state.hasEnded { change(&state) }
        }
    }
}
