import Testing
@testable import WebImageServer

/// W3C Trace Context identities: `traceparent` parsed and written, random IDs.
@Suite("Span identity and traceparent")
struct SpanIdentityTests {
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
