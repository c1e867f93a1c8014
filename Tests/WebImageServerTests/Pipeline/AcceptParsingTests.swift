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

    @Test("the ASCII reading agrees with the general one")
    func asciiAgreesWithGeneral() {
        let pieces = ["image/webp", "IMAGE/AVIF", "*/*", ",", ";", " ", "\t", "\u{0B}", "\r\n", "q=0", "Q=0.0", "q=0.00", "q=0.000", "q=0.5", "q=1", "a", "=", ""]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(FormatNegotiation.asciiAcceptedTypes(text) == FormatNegotiation.generalAcceptedTypes(text), "\(text.debugDescription)")
        }
    }
}
