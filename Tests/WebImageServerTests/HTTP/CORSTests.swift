import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// CORS (`--allow-origin`, imgproxy's `IMGPROXY_ALLOW_ORIGIN`): the headers imgproxy's
/// `WithCORS` sets on its processing route, and its `OPTIONS` route.
@Suite("CORS")
struct CORSTests {
    @Test("with an allowed origin, image responses and their errors carry it, OPTIONS is answered, the server's own paths are not touched")
    func allowOrigin() async throws {
        try await TestProxy.with(configure: { $0.listen.allowOrigin = "https://app.example.com"; $0.listen.healthCheckPath = "/healthz" }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            origin.register("/gone.jpg", .status(404))
            func hasCORS(_ reply: TestProxy.Reply) -> Bool {
                reply.header("access-control-allow-origin") == "https://app.example.com" && reply.header("access-control-allow-methods") == "GET, OPTIONS"
            }
            let image = try await proxy.get(proxyPath("rs:fit:32:32", source: origin.url("/photo.jpg")))
            #expect(image.status == 200 && hasCORS(image))
            let notModified = try await proxy.get(proxyPath("rs:fit:32:32", source: origin.url("/photo.jpg")), headers: [("If-None-Match", image.header("etag") ?? "")])
            #expect(notModified.status == 304 && hasCORS(notModified))
            let missing = try await proxy.get(proxyPath("rs:fit:32:32", source: origin.url("/gone.jpg")))
            #expect(missing.status == 404 && hasCORS(missing))
            let malformed = try await proxy.get("/insecure/rs:what:1/abc")
            #expect(malformed.status >= 400 && hasCORS(malformed))
            for path in ["/health", "/healthz", "/metrics", "/favicon.ico", "/"] {
                let own = try await proxy.get(path)
                #expect(own.header("access-control-allow-origin") == nil, "\(path)")
            }

            let response = try await proxy.request(
                .options, proxyPath("", source: origin.url("/photo.jpg")), headers: [("Origin", "https://app.example.com")], timeout: .seconds(60)
            )
            #expect(response.status == 200)
            #expect(response.header("access-control-allow-origin") == "https://app.example.com")
            #expect(response.header("access-control-allow-methods") == "GET, OPTIONS")
            #expect(response.body.isEmpty)
        }
    }

    @Test("without an allowed origin, no CORS header is sent and OPTIONS is not served")
    func noOrigin() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let image = try await proxy.get(proxyPath("rs:fit:32:32", source: origin.url("/photo.jpg")))
            #expect(image.status == 200 && image.header("access-control-allow-origin") == nil)
            #expect(try await proxy.request(.options, "/health", timeout: .seconds(60)).status == 405)
        }
    }

    @Test("the origin is read from IMGPROXY_ALLOW_ORIGIN and --allow-origin; one that could break the header stops start-up")
    func setting() throws {
        var config = ServerConfig()
        #expect(try ImgproxyEnvironment.apply(["IMGPROXY_ALLOW_ORIGIN": "*"], to: &config).isEmpty)
        #expect(config.listen.allowOrigin == "*")
        try config.validate()
        #expect(ServerSetting.allowOrigin.flag == "allow-origin" && ServerSetting.allowOrigin.environmentName == "WEBIMAGE_ALLOW_ORIGIN")
        for bad in ["https://a.example.com\r\nX-Evil: 1", "two words", "caf\u{E9}.example"] {
            config.listen.allowOrigin = bad
            #expect { try config.validate() } throws: { error in
                (error as? ServerConfigError)?.message.contains("--allow-origin, WEBIMAGE_ALLOW_ORIGIN, IMGPROXY_ALLOW_ORIGIN") == true
            }
        }
    }
}
