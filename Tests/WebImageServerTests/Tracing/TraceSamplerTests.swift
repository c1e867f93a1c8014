import Testing
@testable import WebImageServer

/// The samplers of `OTEL_TRACES_SAMPLER`.
@Suite("Trace sampler")
struct TraceSamplerTests {
    static let sampledParent = SpanIdentity(traceID: String(repeating: "a", count: 32), spanID: "b7ad6b7169203331", isSampled: true)
    static let unsampledParent = SpanIdentity(traceID: String(repeating: "a", count: 32), spanID: "b7ad6b7169203331", isSampled: false)

    @Test("always_on, always_off and the parent-based samplers")
    func fixedSamplers() {
        let traceID = SpanIdentity.randomTraceID()
        #expect(TraceSampler.alwaysOn.shouldSample(traceID: traceID, parent: Self.unsampledParent))
        #expect(!TraceSampler.alwaysOff.shouldSample(traceID: traceID, parent: Self.sampledParent))
        let parentBasedOff = TraceSampler.parentBased(root: .alwaysOff)
        #expect(parentBasedOff.shouldSample(traceID: traceID, parent: Self.sampledParent))
        #expect(!parentBasedOff.shouldSample(traceID: traceID, parent: Self.unsampledParent))
        #expect(!parentBasedOff.shouldSample(traceID: traceID, parent: nil))
        let parentBasedOn = TraceSampler.parentBased(root: .alwaysOn)
        #expect(!parentBasedOn.shouldSample(traceID: traceID, parent: Self.unsampledParent))
        #expect(parentBasedOn.shouldSample(traceID: traceID, parent: nil))
    }

    @Test("traceidratio decides by the trace ID's low 63 bits")
    func ratio() {
        // Low 8 bytes near 0: sampled at any ratio above 0; near 2⁶⁴: at none below 1.
        let smallLow = String(repeating: "f", count: 16) + String(repeating: "0", count: 15) + "2"
        let largeLow = String(repeating: "0", count: 16) + String(repeating: "f", count: 16)
        let middle = String(repeating: "0", count: 16) + "7fffffffffffffff"  // (>> 1) = 2⁶² - 1, just under 0.5 × 2⁶³
        #expect(TraceSampler.traceIDRatio(0.0001).shouldSample(traceID: smallLow, parent: nil))
        #expect(!TraceSampler.traceIDRatio(0).shouldSample(traceID: smallLow, parent: nil))
        #expect(!TraceSampler.traceIDRatio(0.9999).shouldSample(traceID: largeLow, parent: nil))
        #expect(TraceSampler.traceIDRatio(1).shouldSample(traceID: largeLow, parent: nil))
        #expect(TraceSampler.traceIDRatio(0.5).shouldSample(traceID: middle, parent: nil))
        #expect(!TraceSampler.traceIDRatio(0.49).shouldSample(traceID: middle, parent: nil))
        // Over many random IDs the share is close to the ratio.
        let sampled = (0..<20_000).filter { _ in TraceSampler.traceIDRatio(0.25).shouldSample(traceID: SpanIdentity.randomTraceID(), parent: nil) }.count
        #expect((4_400...5_600).contains(sampled), "\(sampled) of 20000")
    }
}
