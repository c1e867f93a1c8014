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
        try await LiveProxy.with(configure: { $0.allowOrigin = "https://app.example.com"; $0.healthCheckPath = "/healthz" }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            origin.register("/gone.jpg", .status(404))
            func hasCORS(_ reply: LiveProxy.Reply) -> Bool {
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

            var preflight = HTTPClientRequest(url: "http://127.0.0.1:\(proxy.port)" + proxyPath("", source: origin.url("/photo.jpg")))
            preflight.method = .OPTIONS
            preflight.headers.add(name: "Origin", value: "https://app.example.com")
            let response = try await HTTPClient.shared.execute(preflight, timeout: .seconds(60))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "access-control-allow-origin") == "https://app.example.com")
            #expect(response.headers.first(name: "access-control-allow-methods") == "GET, OPTIONS")
            #expect(try await response.body.collect(upTo: 1024).readableBytes == 0)
        }
    }

    @Test("without an allowed origin, no CORS header is sent and OPTIONS is not served")
    func noOrigin() async throws {
        try await LiveProxy.with { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let image = try await proxy.get(proxyPath("rs:fit:32:32", source: origin.url("/photo.jpg")))
            #expect(image.status == 200 && image.header("access-control-allow-origin") == nil)
            var preflight = HTTPClientRequest(url: "http://127.0.0.1:\(proxy.port)/health")
            preflight.method = .OPTIONS
            #expect(try await HTTPClient.shared.execute(preflight, timeout: .seconds(60)).status == .methodNotAllowed)
        }
    }

    @Test("the origin is read from IMGPROXY_ALLOW_ORIGIN and --allow-origin; one that could break the header stops start-up")
    func setting() throws {
        var config = ServerConfig()
        #expect(try ImgproxyEnvironment.apply(["IMGPROXY_ALLOW_ORIGIN": "*"], to: &config).isEmpty)
        #expect(config.allowOrigin == "*")
        try config.validate()
        #expect(ServerSetting.allowOrigin.flag == "allow-origin" && ServerSetting.allowOrigin.environmentName == "WEBIMAGE_ALLOW_ORIGIN")
        for bad in ["https://a.example.com\r\nX-Evil: 1", "two words", "caf\u{E9}.example"] {
            config.allowOrigin = bad
            #expect { try config.validate() } throws: { error in
                (error as? ServerConfigError)?.message.contains("--allow-origin, WEBIMAGE_ALLOW_ORIGIN, IMGPROXY_ALLOW_ORIGIN") == true
            }
        }
    }
}
