import Foundation
import Testing
import WebImage
@testable import WebImageServer

// imgproxy security/signature_test.go: signatures of the path "asd" (imgproxy adds the
// leading '/') with the key "test-key" and salt "test-salt".
@Suite("imgproxy signature_test.go")
struct ImgproxySignatureCasesTests {
    static let first = SigningKey(key: Array("test-key".utf8), salt: Array("test-salt".utf8))
    static let second = SigningKey(key: Array("test-key2".utf8), salt: Array("test-salt2".utf8))

    static func verifies(_ signature: String, keys: [SigningKey] = [first], size: Int = 32, trusted: Set<String> = []) -> Bool {
        do {
            try URLSignature(keys: keys, size: size, trusted: trusted).verify(signature: Substring(signature), path: "/asd")
            return true
        } catch {
            #expect(error.status == 403)
            return false
        }
    }

    @Test("imgproxy TestVerifySignature")
    func verifySignature() {
        #expect(Self.verifies("oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20"))
        #expect(ProxyURLParser.signature(for: "/asd", key: Self.first) == "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20")
    }

    @Test("imgproxy TestVerifySignatureTruncated")
    func verifySignatureTruncated() {
        #expect(Self.verifies("oWaL7QoW5Ts", size: 8))
    }

    @Test("imgproxy TestVerifySignatureInvalid")
    func verifySignatureInvalid() {
        #expect(!Self.verifies("oWaL7QoW5Ts"))
    }

    @Test("imgproxy TestVerifySignatureMultiplePairs")
    func verifySignatureMultiplePairs() {
        let keys = [Self.first, Self.second]
        #expect(Self.verifies("jYz1UZ7j1BCdSzH3pZhaYf0iuz0vusoOTdqJsUT6WXI", keys: keys))
        #expect(Self.verifies("oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", keys: keys))
        #expect(!Self.verifies("dtLwhdnPPis", keys: keys))
    }

    @Test("imgproxy TestVerifySignatureTrusted, through a whole path too")
    func verifySignatureTrusted() throws {
        #expect(Self.verifies("truested", trusted: ["truested"]))
        #expect(!Self.verifies("untrusted", trusted: ["truested"]))
        let parser = ProxyURLParser(keys: [Self.first], trustedSignatures: ["truested"])
        #expect(try parser.parse(path: "/truested/w:10/plain/http://example.com/a.jpg").options.width == 10)
        #expect(parseError("/untrusted/w:10/plain/http://example.com/a.jpg", parser: parser)?.status == 403)
    }

    @Test("imgproxy VerifySignature without keys: any signature but one holding ':' (an option where the signature belongs)")
    func unsignedMalformed() throws {
        #expect(Self.verifies("anything", keys: []))
        #expect(!Self.verifies("rs:fill:300:200", keys: []))
        #expect(parseError("/rs:fill:300:200/plain/http://example.com/a.jpg")?.status == 403)
    }
}
