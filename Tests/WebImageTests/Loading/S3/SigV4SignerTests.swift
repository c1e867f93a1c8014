import Crypto
import Foundation
import Testing
@testable import WebImage

/// One case of AWS's published Signature Version 4 test suite (`aws-sig-v4-test-suite`,
/// the 2015-08-30 vectors, as aws/aws-sdk-js-v3 carries them in
/// `packages/signature-v4/src/suite.fixture.ts`): the request, and the `Authorization`
/// header AWS published for it.
struct SigV4SuiteCase: Sendable, CustomTestStringConvertible {
    let name: String
    let method: String
    let path: String
    var query: [(name: String, value: String)] = []
    var headers: [(name: String, value: String)] = []
    var body = ""
    let signedHeaders: String
    let signature: String

    var testDescription: String { name }

    static let credentials = AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    /// 2015-08-30T12:36:00Z.
    static let date = Date(timeIntervalSince1970: 1_440_938_160)
    static let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "service")

    /// The request as the signer takes it: the suite's `host` and `x-amz-date` headers first.
    var request: SigV4Request {
        let hash = SigV4Signer.hex(SHA256Digest.of(body))
        return SigV4Request(
            method: method, path: path, query: query,
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")] + headers, payloadHash: hash
        )
    }

    var authorization: String {
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=\(signedHeaders), Signature=\(signature)"
    }

    static let all: [SigV4SuiteCase] = [
        SigV4SuiteCase(
            name: "get-vanilla", method: "GET", path: "/", signedHeaders: "host;x-amz-date",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SigV4SuiteCase(
            name: "get-vanilla-query", method: "GET", path: "/", signedHeaders: "host;x-amz-date",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SigV4SuiteCase(
            name: "get-vanilla-empty-query-key", method: "GET", path: "/", query: [("Param1", "value1")],
            signedHeaders: "host;x-amz-date", signature: "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"
        ),
        SigV4SuiteCase(
            name: "get-vanilla-query-order-key-case", method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
            signedHeaders: "host;x-amz-date", signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
        ),
        SigV4SuiteCase(
            name: "get-vanilla-query-unreserved", method: "GET", path: "/",
            query: [("-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")],
            signedHeaders: "host;x-amz-date", signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"
        ),
        SigV4SuiteCase(
            name: "get-vanilla-utf8-query", method: "GET", path: "/", query: [("ሴ", "bar")],
            signedHeaders: "host;x-amz-date", signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"
        ),
        SigV4SuiteCase(
            name: "get-unreserved", method: "GET", path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            signedHeaders: "host;x-amz-date", signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"
        ),
        SigV4SuiteCase(
            name: "get-utf8", method: "GET", path: "/ሴ",
            signedHeaders: "host;x-amz-date", signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"
        ),
        SigV4SuiteCase(
            // The suite sends My-Header1 three times: value2, value2, value1.
            name: "get-header-key-duplicate", method: "GET", path: "/",
            headers: [("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")],
            signedHeaders: "host;my-header1;x-amz-date", signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"
        ),
        SigV4SuiteCase(
            name: "get-header-value-order", method: "GET", path: "/", headers: [("My-Header1", "value4,value1,value3,value2")],
            signedHeaders: "host;my-header1;x-amz-date", signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"
        ),
        SigV4SuiteCase(
            name: "get-header-value-trim", method: "GET", path: "/", headers: [("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")],
            signedHeaders: "host;my-header1;my-header2;x-amz-date", signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"
        ),
        SigV4SuiteCase(
            name: "post-vanilla", method: "POST", path: "/", signedHeaders: "host;x-amz-date",
            signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
        ),
        SigV4SuiteCase(
            name: "post-vanilla-query", method: "POST", path: "/", query: [("Param1", "value1")],
            signedHeaders: "host;x-amz-date", signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"
        ),
        SigV4SuiteCase(
            name: "post-vanilla-query-nonunreserved", method: "POST", path: "/", query: [("@#$%^", ""), ("+", "/,?><`\";:\\|][{}")],
            signedHeaders: "host;x-amz-date", signature: "66c82657c86e26fb25238d0e69f011edc4c6df5ae71119d7cb98ed9b87393c1e"
        ),
        SigV4SuiteCase(
            name: "post-vanilla-query-space", method: "POST", path: "/", query: [("p", "")],
            signedHeaders: "host;x-amz-date", signature: "e71688addb58a26418614085fb730ba3faa623b461c17f48f2fbdb9361b94a9b"
        ),
        SigV4SuiteCase(
            name: "post-header-key-case", method: "POST", path: "/", signedHeaders: "host;x-amz-date",
            signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
        ),
        SigV4SuiteCase(
            name: "post-header-key-sort", method: "POST", path: "/", headers: [("My-Header1", "value1")],
            signedHeaders: "host;my-header1;x-amz-date", signature: "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"
        ),
        SigV4SuiteCase(
            name: "post-header-value-case", method: "POST", path: "/", headers: [("My-Header1", "VALUE1")],
            signedHeaders: "host;my-header1;x-amz-date", signature: "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"
        ),
        SigV4SuiteCase(
            name: "post-x-www-form-urlencoded", method: "POST", path: "/",
            headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "Param1=value1",
            signedHeaders: "content-type;host;x-amz-date", signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"
        ),
        SigV4SuiteCase(
            name: "post-x-www-form-urlencoded-parameters", method: "POST", path: "/",
            headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf8")], body: "Param1=value1",
            signedHeaders: "content-type;host;x-amz-date", signature: "1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"
        ),
    ]
}

@Suite("AWS Signature Version 4")
struct SigV4SignerTests {
    @Test("AWS's published test suite", arguments: SigV4SuiteCase.all)
    func publishedSuite(_ suiteCase: SigV4SuiteCase) {
        let signer = SigV4SuiteCase.signer
        #expect(signer.authorization(for: suiteCase.request, date: SigV4SuiteCase.date) == suiteCase.authorization)
    }

    @Test("get-vanilla step by step: canonical request and string to sign as the suite publishes them")
    func vanillaSteps() {
        let request = SigV4SuiteCase.all[0].request
        let signer = SigV4SuiteCase.signer
        #expect(signer.canonicalRequest(for: request) == """
            GET
            /

            host:example.amazonaws.com
            x-amz-date:20150830T123600Z

            host;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(signer.stringToSign(for: request, date: SigV4SuiteCase.date) == """
            AWS4-HMAC-SHA256
            20150830T123600Z
            20150830/us-east-1/service/aws4_request
            bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
            """)
    }

    @Test("post-vanilla-query-nonunreserved: names and values encoded, then sorted")
    func nonUnreservedQuery() {
        let suiteCase = SigV4SuiteCase.all.first { $0.name == "post-vanilla-query-nonunreserved" }!
        #expect(suiteCase.request.encodedQuery == "%2B=%2F%2C%3F%3E%3C%60%22%3B%3A%5C%7C%5D%5B%7B%7D&%40%23%24%25%5E=")
    }

    /// The "GET Object" example of S3's documentation of header-based SigV4 signing.
    @Test("S3's documented GET Object example, with x-amz-content-sha256 and Range")
    func s3GetObjectExample() {
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "s3"
        )
        let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
        let request = SigV4Request(
            method: "GET", path: "/test.txt",
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9")]
        )
        let added = signer.signedHeaders(for: request, date: date)
        #expect(added.first { $0.name == "x-amz-date" }?.value == "20130524T000000Z")
        #expect(added.first { $0.name == "x-amz-content-sha256" }?.value == SigV4Signer.emptyPayloadHash)
        #expect(added.first { $0.name == "Authorization" }?.value
            == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")

        var signed = request
        signed.headers += added.filter { $0.name != "Authorization" }
        #expect(signer.stringToSign(for: signed, date: date).hasSuffix("\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"))
    }

    /// The "GET Bucket (List Objects)" example of the same page: the query is signed.
    @Test("S3's documented list-objects example: the query is signed")
    func s3ListObjectsExample() {
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "s3"
        )
        let request = SigV4Request(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")], headers: [("Host", "examplebucket.s3.amazonaws.com")]
        )
        let authorization = signer.signedHeaders(for: request, date: Date(timeIntervalSince1970: 1_369_353_600)).last?.value
        #expect(authorization?.hasSuffix("SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
    }

    @Test("a session token is sent and signed as x-amz-security-token")
    func sessionToken() {
        let credentials = AWSCredentials(accessKeyID: "ASIAEXAMPLE", secretAccessKey: "secret", sessionToken: "token/with+chars")
        let signer = SigV4Signer(credentials: credentials, region: "eu-west-1", service: "s3")
        let request = SigV4Request(method: "GET", path: "/b/k", headers: [("host", "s3.example")])
        let added = signer.signedHeaders(for: request, date: SigV4SuiteCase.date)
        #expect(added.first { $0.name == "x-amz-security-token" }?.value == "token/with+chars")
        #expect(added.last?.value.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,") == true)
    }

    @Test("URI encoding: unreserved characters stay, the rest is %XY in upper case, / only in paths")
    func uriEncoding() {
        #expect(AWSURIEncoding.encode("a b+c/d~e.f_g-h") == "a%20b%2Bc%2Fd~e.f_g-h")
        #expect(AWSURIEncoding.encode("photos/my cat (1).jpg", keepingSlashes: true) == "photos/my%20cat%20%281%29.jpg")
        #expect(AWSURIEncoding.encode("é") == "%C3%A9")
    }

    @Test("credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; the secret is never printed")
    func credentialsFromEnvironment() {
        let credentials = AWSCredentials.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "s3cr3t", "AWS_SESSION_TOKEN": "tok",
        ])
        #expect(credentials == AWSCredentials(accessKeyID: "AKID", secretAccessKey: "s3cr3t", sessionToken: "tok"))
        #expect(!String(describing: credentials!).contains("s3cr3t"))
        #expect(AWSCredentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "AKID"]) == nil)
        #expect(AWSCredentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": " "]) == nil)
    }

    @Test("the payload hash of a body is its SHA-256 in lower-case hex, as FIPS 180-2's example for abc; of no body, the empty one")
    func payloadHashOfBodies() {
        #expect(SigV4Signer.payloadHash(of: Data()) == SigV4Signer.emptyPayloadHash)
        #expect(SigV4Signer.payloadHash(of: Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

/// SHA-256 of a string's UTF-8 bytes.
private enum SHA256Digest {
    static func of(_ text: String) -> [UInt8] {
        Array(Crypto.SHA256.hash(data: Data(text.utf8)))
    }
}
