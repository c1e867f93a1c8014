import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// imgproxy's caching headers on a live proxy: the source's `ETag` and `Last-Modified`
/// passed through, a conditional request sent on to the source and its 304 answered
/// without a download, and the source's `Cache-Control` passed through.
@Suite("Proxy responses: the source's validators and Cache-Control")
struct SourceValidatorsTests {
    static let etag = "\"origin-v1\""
    static let lastModified = "Sun, 22 Nov 2026 00:00:00 GMT"

    /// A source that answers its own validators with 304, and counts what it sends.
    static func register(_ origin: TestOrigin, headers: [(String, String)] = []) {
        origin.register("/photo.jpg", handler: { request in
            if request.header("if-none-match") == Self.etag || request.header("if-modified-since") == Self.lastModified {
                return .notModified(headers: [("ETag", Self.etag)])
            }
            return .image(ProxyImages.jpeg, headers: [("ETag", Self.etag), ("Last-Modified", Self.lastModified)] + headers)
        })
    }

    @Test("the source's validators are answered; its 304 is answered as 304, with nothing downloaded or made")
    func passthroughAndConditionalSource() async throws {
        try await TestProxy.with(configure: { $0.responses.validators = .source }) { (origin, proxy) async throws in
            Self.register(origin)
            let path = proxyPath("rs:fit:30:30", source: origin.url("/photo.jpg"), extension: "png")

            // Not held by the proxy: the condition goes to the source, whose 304 is the answer.
            let first = try await proxy.get(path, headers: [("If-None-Match", Self.etag)])
            #expect(first.status == 304)
            #expect(first.body.isEmpty)
            #expect(first.header("etag") == Self.etag)
            #expect(origin.lastRequest("/photo.jpg")?.header("if-none-match") == Self.etag)
            #expect(proxy.server.manager.failedURLs.count == 0)

            // Unconditional: made, with the source's validators.
            let made = try await proxy.get(path)
            #expect(made.status == 200)
            #expect(made.header("etag") == Self.etag)
            #expect(made.header("last-modified") == Self.lastModified)
            #expect(origin.lastRequest("/photo.jpg")?.header("if-none-match") == nil)
            let requests = origin.requestCount("/photo.jpg")

            // Held now: answered by the proxy, the source is not asked.
            #expect(try await proxy.get(path, headers: [("If-None-Match", Self.etag)]).status == 304)
            #expect(try await proxy.get(path, headers: [("If-Modified-Since", Self.lastModified)]).status == 304)
            #expect(try await proxy.get(path, headers: [("If-None-Match", "\"origin-v0\"")]).status == 200)
            #expect(origin.requestCount("/photo.jpg") == requests)
        }
    }

    @Test("with an ETag buster the served ETag wraps the source's, and the source is asked with the unwrapped one")
    func busterRoundTrip() async throws {
        try await TestProxy.with(configure: { $0.responses.validators = .source; $0.responses.etagBuster = "b1" }) { (origin, proxy) async throws in
            Self.register(origin)
            let wrapped = "\"b1/" + Base64URL.encode(Self.etag.utf8) + "\""
            // Nothing held: the source is asked with the tag unwrapped, and its 304 answered.
            let answered = try await proxy.get(proxyPath("rs:fit:20:20", source: origin.url("/photo.jpg"), extension: "png"), headers: [("If-None-Match", wrapped)])
            #expect(answered.status == 304)
            #expect(answered.header("etag") == wrapped)
            #expect(origin.lastRequest("/photo.jpg")?.header("if-none-match") == Self.etag)
            // Made: the source's tag, wrapped.
            let reply = try await proxy.get(proxyPath("rs:fit:21:21", source: origin.url("/photo.jpg"), extension: "png"))
            #expect(reply.header("etag") == wrapped)
            // The source is held now: a tag without the buster is no match, and the image is answered.
            let requests = origin.requestCount("/photo.jpg")
            #expect(try await proxy.get(proxyPath("rs:fit:22:22", source: origin.url("/photo.jpg"), extension: "png"), headers: [("If-None-Match", Self.etag)]).status == 200)
            #expect(origin.requestCount("/photo.jpg") == requests)
        }
    }

    @Test("a source without validators gets none answered; the served bytes' own are answered by default")
    func noSourceValidators() async throws {
        try await TestProxy.with(configure: { $0.responses.validators = .source }) { (origin, proxy) async throws in
            origin.register("/plain.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("", source: origin.url("/plain.jpg"), extension: "png"))
            #expect(reply.status == 200)
            #expect(reply.header("etag") == nil)
            #expect(reply.header("last-modified") == nil)
        }
        try await TestProxy.with { (origin, proxy) async throws in
            Self.register(origin)
            let reply = try await proxy.get(proxyPath("", source: origin.url("/photo.jpg"), extension: "png"))
            #expect(reply.header("etag") != Self.etag)
            #expect(reply.header("etag")?.count == 34)
            let conditional = try await proxy.get(proxyPath("rs:fit:9:9", source: origin.url("/photo.jpg"), extension: "png"), headers: [("If-None-Match", Self.etag)])
            #expect(conditional.status == 200, "the served bytes' validators: the source's tag is no match")
            #expect(origin.lastRequest("/photo.jpg")?.header("if-none-match") == nil)
        }
    }

    @Test("Cache-Control passed through: the source's own, after the URL's expires and before the TTL")
    func cacheControlPassthrough() async throws {
        try await TestProxy.with(configure: { $0.responses.cacheControlPassthrough = true; $0.caching.ttl = 3600 }) { (origin, proxy) async throws in
            Self.register(origin, headers: [("Cache-Control", "public, max-age=123, stale-while-revalidate=30")])
            let registered = Date()
            origin.register("/expires.jpg", .image(ProxyImages.jpeg, headers: [("Expires", HTTPDate.string(from: registered.addingTimeInterval(600)))]))
            origin.register("/plain.jpg", .image(ProxyImages.jpeg))
            let own = try await proxy.get(proxyPath("", source: origin.url("/photo.jpg"), extension: "png"))
            #expect(own.header("cache-control") == "public, max-age=123, stale-while-revalidate=30")
            // Held now, and still the source's.
            #expect(try await proxy.get(proxyPath("", source: origin.url("/photo.jpg"), extension: "png")).header("cache-control")
                == "public, max-age=123, stale-while-revalidate=30")
            let fromExpires = try await proxy.get(proxyPath("", source: origin.url("/expires.jpg"), extension: "png")).header("cache-control")
            let age = fromExpires.flatMap { Int($0.replacingOccurrences(of: "max-age=", with: "").replacingOccurrences(of: ", public", with: "")) }
            // Until Expires: no more than 600 seconds, less by the time since it was written.
            let elapsed = Int(Date().timeIntervalSince(registered).rounded(.up))
            #expect(age.map { (600 - elapsed - 1...600).contains($0) } == true, "max-age until Expires, got \(fromExpires ?? "none") after \(elapsed) s")
            #expect(try await proxy.get(proxyPath("", source: origin.url("/plain.jpg"), extension: "png")).header("cache-control") == "max-age=3600, public")
            let expiry = Int(Date().timeIntervalSince1970) + 60
            let capped = try await proxy.get(proxyPath("exp:\(expiry)", source: origin.url("/photo.jpg"), extension: "png")).header("cache-control")
            #expect(capped.map { $0.hasPrefix("max-age=") && $0.hasSuffix(", public") } == true)
        }
    }

    @Test("settings: --validators, --cache-control-passthrough and imgproxy's variables; imgproxy's profile passes validators through")
    func settings() throws {
        var config = ServerConfig()
        try ServerSetting.validators.apply(["source"], to: &config)
        #expect(config.responses.validators == .source)
        #expect(throws: ServerConfigError.self) { try ServerSetting.validators.apply(["origin"], to: &config) }
        try ImgproxyEnvironment.apply(["IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "true"], to: &config)
        #expect(config.responses.cacheControlPassthrough)
        #expect(ServerProfile.imgproxy.defaults.responses.validators == .source)
        #expect(ServerProfile.webimage.defaults.responses.validators == .variant)
    }
}
