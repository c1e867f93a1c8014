import Foundation
import Testing
@testable import WebImage

@Suite("Percent decoding")
struct PercentDecodingTests {
    @Test("decodes escapes of either case; text without % comes back unchanged")
    func decodes() {
        #expect(PercentDecoding.decode("http://a/b.jpg") == "http://a/b.jpg")
        #expect(PercentDecoding.decode("https%3A%2F%2Fexample.com%2Fa%20b.jpg%3fv%3D1") == "https://example.com/a b.jpg?v=1")
        #expect(PercentDecoding.decode("caf%C3%A9") == "café")
        #expect(PercentDecoding.decode("") == "")
    }

    @Test("refuses malformed escapes and bytes that are not UTF-8")
    func refuses() {
        for text in ["%", "a%", "a%4", "%zz", "%4g", "%%41", "%FF", "%C3", "%C3%28"] {
            #expect(PercentDecoding.decode(Substring(text)) == nil, "\(text)")
        }
    }

    @Test("agrees with Foundation's removingPercentEncoding")
    func agreesWithFoundation() {
        let pieces = ["a", "/", "%", "%2", "%20", "%2f", "%2F", "%C3%A9", "%e2%82%ac", "%FF", "%80", "%00", "é", "%G1", "@", ":", "?"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(PercentDecoding.decode(Substring(text)) == text.removingPercentEncoding, "\(text)")
        }
    }

    @Test("bytes: binary escapes come through as bytes; a malformed escape is nil")
    func bytes() {
        #expect(PercentDecoding.bytes("a%FF%00b".utf8) == [0x61, 0xFF, 0x00, 0x62])
        #expect(PercentDecoding.bytes("%G1".utf8) == nil)
        #expect(PercentDecoding.bytes("%4".utf8) == nil)
        #expect(PercentDecoding.bytes("".utf8) == [])
    }
}
