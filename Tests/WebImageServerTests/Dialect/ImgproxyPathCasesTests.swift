import Foundation
import Testing
import WebImage
@testable import WebImageServer

// imgproxy handlers/path_test.go: how the path after the signature is restored before the
// signature is checked against it (`%3A` in the options, `https:/host` in a plain source),
// and which paths are refused.
@Suite("imgproxy path_test.go")
struct ImgproxyPathCasesTests {
    static let key = SigningKey(key: Array("path-key".utf8), salt: Array("path-salt".utf8))
    static let signed = ProxyURLParser(keys: [key])

    /// imgproxy's TestParsePath: request path (after the signature) and the path the
    /// signature is computed over.
    static let parsePath: [(name: String, request: String, expected: String)] = [
        ("BasicPath", "rs:fill:300:200/plain/http://example.com/image.jpg", "rs:fill:300:200/plain/http://example.com/image.jpg"),
        ("PathWithPlainUrlRedenormalization", "rs:fill:300:200/plain/https:/example.com/path/to/image.jpg",
         "rs:fill:300:200/plain/https://example.com/path/to/image.jpg"),
        ("PathWithOptionsSeparatorUnescapingPLain", "rs%3Afill%3A300%3A200/plain/https://example.com/path/to/image.jpg",
         "rs:fill:300:200/plain/https://example.com/path/to/image.jpg"),
        ("PathWithOptionsSeparatorUnescapingBas64", "rs%3Afill%3A300%3A200/abc/abc", "rs:fill:300:200/abc/abc"),
    ]

    @Test("imgproxy TestParsePath: the signature is checked against the restored path", arguments: parsePath)
    func signedAgainstRestoredPath(_ example: (name: String, request: String, expected: String)) throws {
        #expect(ProxyPathNormalization.redenormalized(Substring(example.request)) == example.expected, "\(example.name)")
        let signature = ProxyURLParser.signature(for: "/" + example.expected, key: Self.key)
        do {
            let request = try Self.signed.parse(path: "/\(signature)/\(example.request)")
            #expect(request.options.resizingType == .fill && request.options.width == 300 && request.options.height == 200, "\(example.name)")
            #expect(request.source.absoluteString.hasPrefix("http") && request.source.absoluteString.contains("://example.com/"), "\(example.name)")
        } catch {
            // abc/abc is no base64 URL: past the signature, the source is what is refused.
            #expect(example.name.hasSuffix("Bas64") && error.status == 400, "\(example.name): \(error.message)")
        }
        // Signed over the path as sent (not restored), the mangled forms are refused.
        if example.request != example.expected {
            let wrong = ProxyURLParser.signature(for: "/" + example.request, key: Self.key)
            #expect(parseError("/\(wrong)/\(example.request)", parser: Self.signed)?.status == 403, "\(example.name)")
        }
    }

    @Test("imgproxy TestParsePath: NoSignatureSeparator, EmptyPath, OnlySignature are refused")
    func refusedPaths() {
        for path in ["/invalid_path_without_slash", "/", "/signature_only"] {
            #expect(parseError(path) != nil, "\(path) unsigned")
            #expect(parseError(path, parser: Self.signed) != nil, "\(path) signed")
        }
    }

    @Test("imgproxy TestParsePath/PathWithQueryParams: the query is not part of the path or the source")
    func queryParameters() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/geometry.png", .image(PositionalImage.png))
            let reply = try await proxy.get("/unsafe/rs:fill:300:200/plain/\(origin.url("/geometry.png").absoluteString)?param1=value1&param2=value2")
            #expect(reply.status == 200, "\(reply.text.prefix(200))")
            #expect(try ProxyImages.size(of: reply.body) == PixelSize(width: 200, height: 100))
        }
    }

    /// imgproxy's TestRedenormalizePathHTTPProtocol.
    static let redenormalize: [(name: String, input: String, expected: String)] = [
        ("HTTP", "plain/http:/example.com/image.jpg", "plain/http://example.com/image.jpg"),
        ("HTTPS", "plain/https:/example.com/image.jpg", "plain/https://example.com/image.jpg"),
        ("Local", "plain/local:/image.jpg", "plain/local:///image.jpg"),
        ("WithOptions", "/rs:fill:300:200/plain/http:/example.com/image.jpg", "rs:fill:300:200/plain/http://example.com/image.jpg"),
        ("NormalizedPath", "/plain/http://example.com/image.jpg", "plain/http://example.com/image.jpg"),
        ("ProtocolMissing", "/rs:fill:300:200/plain/example.com/image.jpg", "rs:fill:300:200/plain/example.com/image.jpg"),
        ("EmptyString", "", ""),
        ("SingleSlash", "/", ""),
        ("NoPlainPrefix", "/http:/example.com/image.jpg", "http:/example.com/image.jpg"),
        ("NoProtocol", "/plain/example.com/image.jpg", "plain/example.com/image.jpg"),
        ("EndsWithProtocol", "/plain/http:", "plain/http:"),
        ("OnlyProtocol", "/plain/http:/test", "plain/http://test"),
    ]

    /// Our own cases beside imgproxy's: only the upper-case `%3A` of the options part is
    /// restored, escapes split by the `/plain/` marker are left alone, the first marker is
    /// the one that counts, and the scheme fix takes the last `:/` of the source (imgproxy's
    /// greedy `^(\S+):/([^/])`).
    static let redenormalizeEdges: [(name: String, input: String, expected: String)] = [
        ("EscapedColons", "rs%3Afit%3A300/q%3A80/plain/http:/h/a.jpg", "rs:fit:300/q:80/plain/http://h/a.jpg"),
        ("LowerCaseEscapeKept", "rs%3afit/plain/http://h/a.jpg", "rs%3afit/plain/http://h/a.jpg"),
        ("EscapeInSourceKept", "w:1/plain/http://h/a%3A.jpg", "w:1/plain/http://h/a%3A.jpg"),
        ("EscapeAtOptionsEnd", "w%3/plain/http://h/a.jpg", "w%3/plain/http://h/a.jpg"),
        ("OptionsOnly", "/rs%3Afill", "rs:fill"),
        ("FirstMarkerGreedyScheme", "w:1/plain/http:/h/plain/x:/y", "w:1/plain/http:/h/plain/x://y"),
        ("NonASCII", "w:1/plain/http://h/ä ö.jpg", "w:1/plain/http://h/ä ö.jpg"),
    ]

    @Test("Redenormalization, edge cases", arguments: redenormalizeEdges)
    func redenormalizeEdge(_ example: (name: String, input: String, expected: String)) {
        #expect(ProxyPathNormalization.redenormalized(Substring(example.input)) == example.expected, "\(example.name)")
    }

    @Test("imgproxy TestRedenormalizePathHTTPProtocol", arguments: redenormalize)
    func redenormalizePath(_ example: (name: String, input: String, expected: String)) {
        #expect(ProxyPathNormalization.redenormalized(Substring(example.input)) == example.expected, "\(example.name)")
    }

    /// The prefix is taken off by the server before the path is parsed, so this case runs
    /// against a live proxy. Its source is outside the allowed ones: a 404 that says so
    /// shows the signature passed, without fetching anything.
    @Test("imgproxy TestParsePath/PathWithPrefix")
    func pathWithPrefix() async throws {
        try await TestProxy.with(configure: {
            $0.listen.pathPrefix = "/imgproxy"
            $0.signing.keys = ["736563726574"]
            $0.signing.salts = ["68656c6c6f"]
            $0.sources.allowedSources = ["http://allowed.invalid/"]
        }) { (_, proxy) async throws in
            let path = "/rs:fill:300:200/plain/http://example.com/image.jpg"
            let key = try SigningKey(hexKey: "736563726574", hexSalt: "68656c6c6f")
            let signed = try await proxy.get("/imgproxy/" + ProxyURLParser.signature(for: path, key: key) + path)
            #expect(signed.status == 404 && signed.text.contains("allowed source"), "\(signed.text)")
            #expect(try await proxy.get("/imgproxy/dummy_signature" + path).status == 403)
        }
    }
}
