import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// `--allowed-source` and the URL rewrites on the normalised URL of every hop: no spelling
/// of a path, and no redirect, takes a download out of an allowed prefix.
@Suite("Source rules on every hop")
struct SourceRulesTests {
    @Test("normalised: scheme and host lower-cased, unreserved escapes decoded, slashes merged, dot segments removed")
    func normalisation() {
        let cases = [
            ("HTTPS://Images.Example.COM/a/b/../c.jpg?x=/../y#f", "https://images.example.com/a/c.jpg?x=/../y#f"),
            ("https://example.com/public/%2e%2e/private/x.jpg", "https://example.com/private/x.jpg"),
            ("https://example.com/public/%2E%2e/%2E/x.jpg", "https://example.com/x.jpg"),
            ("https://example.com//public///x.jpg", "https://example.com/public/x.jpg"),
            ("https://example.com/public//../x.jpg", "https://example.com/x.jpg"),
            ("https://example.com/a/%7Euser/%41.jpg", "https://example.com/a/~user/A.jpg"),
            ("https://example.com/a%2Fb.jpg", "https://example.com/a%2Fb.jpg"),
            ("https://example.com/..", "https://example.com/"),
            ("https://example.com", "https://example.com"),
            ("s3://Bucket/a/../b.jpg", "s3://Bucket/a/../b.jpg"),
        ]
        for (given, expected) in cases {
            #expect(SourceURLNormalization.normalized(given) == expected, "\(given)")
        }
        #expect(SourceURLNormalization.checkedForms(of: "https://example.com/public/..%2Fprivate/x.jpg") == [
            "https://example.com/public/..%2Fprivate/x.jpg", "https://example.com/private/x.jpg",
        ])
    }

    @Test("HP5 '..', '%2e%2e', encoded slashes and doubled slashes cannot leave an allowed prefix; the origin never sees the path outside it")
    func dotSegmentsCannotEscape() async throws {
        try await TestProxy.with(configure: { _ in }) { origin, _ in
            origin.register("/public/a.jpg", .image(ProxyImages.jpeg))
            origin.register("/private/a.jpg", .image(ProxyImages.jpeg))
            let allowed = origin.url("/public/").absoluteString
            let proxy = try await TestProxy.start(configure: { $0.sources.allowedSources = [allowed] })
            defer { Task { await proxy.stop() } }
            #expect(try await proxy.get(proxyPath("", source: origin.url("/public/a.jpg"))).status == 200)
            let base = origin.baseURL.absoluteString
            for escape in ["public/../private/a.jpg", "public/%2e%2e/private/a.jpg", "public/%2E%2E/private/a.jpg",
                           "public/..%2Fprivate/a.jpg", "public/%2e%2e%2fprivate/a.jpg", "public//../private/a.jpg",
                           "public/..%5Cprivate/a.jpg"] {
                let source = try #require(URL(string: base + (base.hasSuffix("/") ? "" : "/") + escape))
                let reply = try await proxy.get(proxyPath("", source: source))
                #expect(reply.status == 404, "\(escape) answered \(reply.status)")
            }
            #expect(origin.requestCount("/private/a.jpg") == 0)
        }
    }

    @Test("HP5 a redirect out of the allowed sources is refused before it is followed; one within them is followed")
    func redirectsStayInside() async throws {
        try await TestProxy.with { origin, _ in
            origin.register("/public/a.jpg", .image(ProxyImages.jpeg))
            origin.register("/private/a.jpg", .image(ProxyImages.jpeg))
            origin.register("/public/out.jpg", .redirect(to: "/private/a.jpg"))
            origin.register("/public/dots.jpg", .redirect(to: origin.url("/public/../private/a.jpg").absoluteString))
            origin.register("/public/in.jpg", .redirect(to: "/public/a.jpg"))
            let proxy = try await TestProxy.start(configure: {
                $0.sources.allowedSources = [origin.url("/public/").absoluteString]
                $0.responses.developmentErrors = true
            })
            defer { Task { await proxy.stop() } }
            for path in ["/public/out.jpg", "/public/dots.jpg"] {
                let reply = try await proxy.get(proxyPath("", source: origin.url(path)))
                #expect(reply.status == 403)
                #expect(reply.text.contains("not under an allowed source prefix"))
                #expect(origin.requestCount(path) == 1)
            }
            #expect(origin.requestCount("/private/a.jpg") == 0)
            #expect(try await proxy.get(proxyPath("", source: origin.url("/public/in.jpg"))).status == 200)
            #expect(origin.requestCount("/public/a.jpg") == 1)
        }
    }

    @Test("HP5 the URL rewrites see the normalised URL, and the allowed sources the rewritten one, normalised again")
    func rewritesSeeTheNormalisedURL() async throws {
        try await TestProxy.with { origin, _ in
            origin.register("/public/a.jpg", .image(ProxyImages.jpeg))
            origin.register("/private/a.jpg", .image(ProxyImages.jpeg))
            let public_ = origin.url("/public/").absoluteString
            let proxy = try await TestProxy.start(configure: {
                $0.sources.allowedSources = [public_]
                $0.sources.urlReplacements = [SourceURLRewrite.Replacement(pattern: "http://images.test/", replacement: public_)]
                $0.sources.baseURL = public_
            })
            defer { Task { await proxy.stop() } }
            // Written in capitals, the host still matches the rewrite's pattern.
            #expect(try await proxy.get("/insecure/plain/HTTP://IMAGES.TEST/a.jpg").status == 200)
            // Relative to the base URL, '..' leaves the prefix once joined: refused.
            #expect(try await proxy.get("/insecure/plain/..%2Fprivate%2Fa.jpg").status == 404)
            #expect(try await proxy.get("/insecure/plain/a.jpg").status == 200)
            #expect(origin.requestCount("/private/a.jpg") == 0)
        }
    }
}
