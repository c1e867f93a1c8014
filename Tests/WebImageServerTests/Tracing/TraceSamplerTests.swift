import Testing
@testable import WebImageServer

/// The samplers of `OTEL_TRACES_SAMPLER` and the W3C `traceparent` they read.
@Suite("Trace sampler and traceparent")
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

    @Test("traceparent: parsed and written in the W3C format; malformed ones are refused")
    func traceparent() throws {
        // W3C Trace Context, section 3.2 example.
        let parsed = try #require(SpanIdentity(traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", traceState: "congo=t61rcWkgMzE"))
        #expect(parsed.traceID == "0af7651916cd43dd8448eb211c80319c")
        #expect(parsed.spanID == "b7ad6b7169203331")
        #expect(parsed.isSampled && parsed.isRemote)
        #expect(parsed.traceState == "congo=t61rcWkgMzE")
        #expect(parsed.traceparent == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        #expect(SpanIdentity(traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")?.isSampled == false)
        // A later version may append fields.
        #expect(SpanIdentity(traceparent: "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra") != nil)
        let malformed = [
            "", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "00-0af7651916cd43dd8448eb211c8031-b7ad6b7169203331-01",
        ]
        for header in malformed { #expect(SpanIdentity(traceparent: header) == nil, "\(header)") }
    }

    @Test("Random IDs are lowercase hex of the right length")
    func randomIDs() {
        let trace = SpanIdentity.randomTraceID(), span = SpanIdentity.randomSpanID()
        #expect(trace.count == 32 && trace.isLowercaseHex)
        #expect(span.count == 16 && span.isLowercaseHex)
        #expect(trace != SpanIdentity.randomTraceID())
    }
}
