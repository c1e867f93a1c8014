import Foundation
import Testing
import WebImageServer

// Right signature accepted, wrong or missing → 403, unsigned only without keys,
// several key/salt pairs, truncated signature sizes.
@Suite("Proxy URL signatures")
struct URLSignatureTests {
    /// imgproxy's documented example: key "secret", salt "hello".
    static let docsPath = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
    static let docsSignature = "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"

    let docsKey: SigningKey
    let otherKey: SigningKey

    init() throws {
        docsKey = try SigningKey(hexKey: "736563726574", hexSalt: "68656C6C6F")
        otherKey = try SigningKey(hexKey: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881", hexSalt: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")
    }

    @Test("S2 imgproxy's documented example signature is accepted and produced")
    func documentedExample() throws {
        let parser = ProxyURLParser(keys: [docsKey])
        let request = try parser.parse(path: "/\(Self.docsSignature)\(Self.docsPath)")
        #expect(request.source.absoluteString == "http://example.com/images/curiosity.jpg")
        #expect(request.options.resizingType == .fill && request.options.gravity == .smart)
        #expect(ProxyURLParser.signature(for: Self.docsPath, key: docsKey) == Self.docsSignature)
    }

    @Test("S2 a wrong, altered, missing or unsigned signature is 403 when keys are configured")
    func wrongSignature() {
        let parser = ProxyURLParser(keys: [docsKey])
        var flipped = Array(Self.docsSignature)
        flipped[5] = flipped[5] == "A" ? "B" : "A"
        let cases = [
            "/\(String(flipped))\(Self.docsPath)",
            "/\(Self.docsSignature)" + Self.docsPath.replacingOccurrences(of: "300", with: "301"),
            "/insecure\(Self.docsPath)",
            "/_\(Self.docsPath)",
            "/\(Self.docsPath)",
            "/" + Self.docsPath.dropFirst(),
            "//rs:fill:300:400:0/plain/http://example.com/a.jpg",
            "/!!!\(Self.docsPath)",
        ]
        for path in cases {
            let error = parseError(path, parser: parser)
            #expect(error?.status == 403, "\(path)")
            #expect(error?.message.contains("signature") == true, "\(path)")
        }
        // A signature and nothing after it is a malformed path (imgproxy: an invalid path, 404).
        let onlySignature = parseError("/\(Self.docsSignature)", parser: parser)
        #expect(onlySignature?.status == 400)
        #expect(onlySignature?.answered(under: .imgproxy).status == 404)
    }

    @Test("S2 the signature is checked before the options: a bad option behind a bad signature is 403")
    func signatureFirst() {
        let parser = ProxyURLParser(keys: [docsKey])
        #expect(parseError("/bad/w:abc/plain/http://a/b.jpg", parser: parser)?.status == 403)
    }

    @Test("S2 any of several key/salt pairs signs a valid URL")
    func multipleKeys() throws {
        let parser = ProxyURLParser(keys: [otherKey, docsKey])
        let path = "/rs:fit:100:100/plain/http://example.com/a.jpg@png"
        for key in [docsKey, otherKey] {
            let signature = ProxyURLParser.signature(for: path, key: key)
            #expect(try parser.parse(path: "/\(signature)\(path)").source.absoluteString == "http://example.com/a.jpg")
        }
        let stranger = try SigningKey(hexKey: "00ff", hexSalt: "")
        let error = parseError("/\(ProxyURLParser.signature(for: path, key: stranger))\(path)", parser: parser)
        #expect(error?.status == 403)
    }

    @Test("S2 truncated signature sizes: the digest is cut before encoding; other lengths are refused")
    func truncatedSize() throws {
        let parser = ProxyURLParser(keys: [docsKey], signatureSize: 8)
        #expect(ProxyURLParser.signature(for: Self.docsPath, key: docsKey, signatureSize: 8) == "oKfUtW34Dvo")
        #expect(try parser.parse(path: "/oKfUtW34Dvo\(Self.docsPath)").options.width == 300)
        #expect(parseError("/\(Self.docsSignature)\(Self.docsPath)", parser: parser)?.status == 403)
        #expect(parseError("/oKfUtW34Dv\(Self.docsPath)", parser: parser)?.status == 403)
        #expect(parseError("/oKfUtW34Dvo\(Self.docsPath)", parser: ProxyURLParser(keys: [docsKey]))?.status == 403)
        for size in [1, 16, 31, 32] {
            let sized = ProxyURLParser(keys: [docsKey], signatureSize: size)
            let signature = ProxyURLParser.signature(for: Self.docsPath, key: docsKey, signatureSize: size)
            #expect(try sized.parse(path: "/\(signature)\(Self.docsPath)").options.height == 400)
        }
    }

    @Test("S2 without keys any signature segment is accepted, including a real one")
    func unsignedWithoutKeys() throws {
        let parser = ProxyURLParser(keys: [])
        for signature in ["insecure", "_", "unsafe", Self.docsSignature, "anything-at-all"] {
            #expect(try parser.parse(path: "/\(signature)\(Self.docsPath)").options.width == 300)
        }
    }

    @Test("S2 key and salt must be hex; the key must not be empty")
    func keyValidation() throws {
        #expect(try SigningKey(hexKey: "0aFF", hexSalt: "").key == [0x0A, 0xFF])
        for (key, salt) in [("", "00"), ("abc", "00"), ("zz", "00"), ("00", "0"), ("00", "xy")] {
            #expect(throws: ProxyError.self, "\(key)/\(salt)") { try SigningKey(hexKey: key, hexSalt: salt) }
        }
    }
}
