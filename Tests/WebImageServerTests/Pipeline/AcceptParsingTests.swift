import Foundation
import Testing
@testable import WebImageServer

@Suite("Accept parsing")
struct AcceptParsingTests {
    @Test("a browser's Accept lists its types; q=0 refuses one")
    func browser() {
        let types = FormatNegotiation.acceptedTypes("image/AVIF,image/webp;q=0 , image/apng,\timage/*;q=0.8,*/*;Q=0.000")
        #expect(types == ["image/avif", "image/apng", "image/*"])
        #expect(FormatNegotiation.acceptedTypes(nil).isEmpty)
    }

    /// The reading with Foundation's trimming and lower-casing that the byte-level parser
    /// replaced, as the reference for ASCII headers.
    static func foundationAcceptedTypes(_ accept: String) -> Set<String> {
        var types: Set<String> = []
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            if !parts.dropFirst().contains(where: { ["q=0", "q=0.0", "q=0.00", "q=0.000"].contains($0) }) { types.insert(type) }
        }
        return types
    }

    @Test("the byte-level reading agrees with Foundation's on ASCII headers")
    func asciiAgreesWithGeneral() {
        let pieces = ["image/webp", "IMAGE/AVIF", "*/*", ",", ";", " ", "\t", "\u{0B}", "\r\n", "q=0", "Q=0.0", "q=0.00", "q=0.000", "q=0.5", "q=1", "a", "=", ""]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(FormatNegotiation.acceptedTypes(text) == Self.foundationAcceptedTypes(text), "\(text.debugDescription)")
        }
    }
}
