import HTTPTypes
import Testing
@testable import WebImageServer

@Suite("Client hints")
struct ClientHintsTests {
    static func hints(_ fields: [String: String]) -> ClientHints {
        ClientHints { name in fields[name.canonicalName] ?? fields[name.rawName] }
    }

    @Test("a hint's value is rounded up to a bounded set: DPR to the next half, Width to four significant bits")
    func valuesAreRoundedUp() {
        #expect(Self.hints(["DPR": "1.25"]).dpr == 1.5)
        #expect(Self.hints(["DPR": "2.625"]).dpr == 3)
        #expect(Self.hints(["DPR": "0.1"]).dpr == 0.5)
        #expect(Self.hints(["DPR": "9"]).dpr == nil)
        #expect(Self.hints(["Width": "1000"]).width == 1024)
        #expect(Self.hints(["Width": "1025"]).width == 1152)
        #expect(Self.hints(["Width": "12"]).width == 12)
        #expect(Self.hints(["Width": "999999999"]).width == ClientHints.maxWidth)
        // Any value is at least the one asked for (up to the bound) and at most 12.5 % more.
        #expect((1...ClientHints.maxWidth).allSatisfy { width in
            let rounded = ClientHints.roundedWidth(width)
            return rounded >= width && Double(rounded) <= Double(width) * 1.125
        })
    }

    @Test("every client together makes a bounded number of distinct hints")
    func boundedSet() {
        let widths = Set((1...100_000).map(ClientHints.roundedWidth))
        let ratios = Set(stride(from: 0.01, through: 8, by: 0.01).map(ClientHints.roundedDPR))
        #expect(widths.count <= 96)
        #expect(ratios.count == 16)
    }
}
