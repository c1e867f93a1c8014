import Tracing

/// A swift-distributed-tracing `Tracer` that follows W3C Trace Context (`traceparent`,
/// `tracestate`), samples as its ``TraceSampler`` says, and hands every sampled span that
/// ends to a ``BatchSpanProcessor``.
///
///     let processor = BatchSpanProcessor(configuration: config, exporter: OTLPHTTPExporter(configuration: config))
///     InstrumentationSystem.bootstrap(OTLPTracer(sampler: config.sampler, processor: processor))
public struct OTLPTracer: Tracer {
    /// Which traces are recorded.
    public let sampler: TraceSampler
    /// Where ended spans go.
    public let processor: BatchSpanProcessor

    /// A tracer sampling with `sampler` and exporting through `processor`.
    public init(sampler: TraceSampler, processor: BatchSpanProcessor) {
        self.sampler = sampler
        self.processor = processor
    }

    /// Starts a span: a child of the span in `context` (same trace), else the root of a new
    /// trace, sampled as ``sampler`` decides.
    public func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> OTLPSpan {
        var context = context()
        let parent = context.spanIdentity
        let traceID = parent?.traceID ?? SpanIdentity.randomTraceID()
        let identity = SpanIdentity(
            traceID: traceID, spanID: SpanIdentity.randomSpanID(),
            isSampled: sampler.shouldSample(traceID: traceID, parent: parent), traceState: parent?.traceState ?? ""
        )
        context.spanIdentity = identity
        return OTLPSpan(
            name: operationName, kind: kind, context: context, parentSpanID: parent?.spanID,
            startNanoseconds: instant().nanosecondsSinceEpoch, processor: identity.isSampled ? processor : nil
        )
    }

    /// Asks the processor to export what it holds without waiting for its schedule.
    public func forceFlush() {
        processor.exportSoon()
    }

    /// Reads `traceparent` and `tracestate` from `carrier`; a malformed `traceparent` is
    /// ignored (the request starts a new trace).
    public func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {
        guard let traceparent = extractor.extract(key: "traceparent", from: carrier) else { return }
        let traceState = extractor.extract(key: "tracestate", from: carrier) ?? ""
        if let identity = SpanIdentity(traceparent: traceparent, traceState: traceState) {
            context.spanIdentity = identity
        }
    }

    /// Writes `traceparent` (and a non-empty `tracestate`) of the span `context` is inside.
    public func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let identity = context.spanIdentity else { return }
        injector.inject(identity.traceparent, forKey: "traceparent", into: &carrier)
        if !identity.traceState.isEmpty { injector.inject(identity.traceState, forKey: "tracestate", into: &carrier) }
    }
}
