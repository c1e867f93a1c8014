/// Which traces are recorded: the OpenTelemetry samplers `OTEL_TRACES_SAMPLER` names.
public enum TraceSampler: Sendable, Equatable {
    /// Every trace.
    case alwaysOn
    /// No trace.
    case alwaysOff
    /// A share of traces (0...1), chosen by trace ID so every process agrees.
    case traceIDRatio(Double)
    /// A span with a parent follows the parent's sampled flag; a root span is decided by
    /// `root`.
    indirect case parentBased(root: TraceSampler)

    /// Whether a span of `traceID`, under `parent` (if any), is recorded and exported.
    public func shouldSample(traceID: String, parent: SpanIdentity?) -> Bool {
        switch self {
        case .alwaysOn:
            return true
        case .alwaysOff:
            return false
        case .traceIDRatio(let ratio):
            return Self.isWithinRatio(traceID: traceID, ratio: ratio)
        case .parentBased(let root):
            if let parent { return parent.isSampled }
            return root.shouldSample(traceID: traceID, parent: nil)
        }
    }

    /// The trace ID's low 8 bytes as a 63-bit number, compared with `ratio` × 2⁶³ (the
    /// rule of OpenTelemetry's SDKs, so a trace sampled at one ratio is sampled at any
    /// higher one).
    static func isWithinRatio(traceID: String, ratio: Double) -> Bool {
        if ratio <= 0 { return false }
        if ratio >= 1 { return true }
        guard traceID.count == 32, let low = UInt64(traceID.suffix(16), radix: 16) else { return false }
        let bound = UInt64(ratio * 9_223_372_036_854_775_808.0)
        return (low >> 1) < bound
    }
}
