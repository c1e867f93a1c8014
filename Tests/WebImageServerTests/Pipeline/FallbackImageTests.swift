import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// The fallback image: served, processed as the URL asks, in place of a source that cannot
/// be downloaded, with imgproxy's status and TTL settings.
@Suite("Fallback image")
struct FallbackImageTests {
    static let fallbackData = ProxyImages.png.base64EncodedString()

    @Test("a source that cannot be downloaded gets the fallback image, processed as the URL asks; a source that is not an image does not")
    func servedInPlace() async throws {
        try await TestProxy.with(configure: { $0.caching.ttl = 3600; $0.sources.fallbackImageData = Self.fallbackData }) { (origin, proxy) async throws in
            origin.register("/gone.jpg", .status(404))
            origin.register("/broken.jpg", .status(500))
            origin.register("/garbage.jpg", .data(Data("not an image".utf8), contentType: "image/jpeg"))
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            for path in ["/gone.jpg", "/broken.jpg"] {
                let reply = try await proxy.get(proxyPath("rs:fit:50:50", source: origin.url(path), extension: "png"))
                #expect(reply.status == 200, "\(path): \(reply.text.prefix(200))")
                #expect(try ProxyImages.size(of: reply.body) == PixelSize(width: 50, height: 25), "\(path)")
                #expect(reply.header("cache-control") == "max-age=3600, public")
            }
            // An unreachable source too.
            let unreachable = try await proxy.get(proxyPath("rs:fit:50:50", source: URL(string: "http://127.0.0.1:1/none.jpg")!))
            #expect(unreachable.status == 200)
            // Bytes that are not an image are the source's fault: their error, not the fallback.
            #expect(try await proxy.get(proxyPath("", source: origin.url("/garbage.jpg"))).status == 422)
            // The source's own image when it is there; details are never a fallback.
            let photo = try await proxy.get(proxyPath("rs:fit:50:50", source: origin.url("/photo.jpg"), extension: "png"))
            #expect(try ProxyImages.size(of: photo.body) == PixelSize(width: 50, height: 38))
            #expect(try await proxy.get("/info" + proxyPath("", source: origin.url("/gone.jpg"))).status == 404)
        }
    }

    @Test("IMGPROXY_FALLBACK_IMAGE_HTTP_CODE sets the status (0: the error's); IMGPROXY_FALLBACK_IMAGE_TTL shortens max-age")
    func statusAndTTL() async throws {
        var config = ServerConfig()
        try ImgproxyEnvironment.apply([
            "IMGPROXY_FALLBACK_IMAGE_DATA": Self.fallbackData, "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "0", "IMGPROXY_FALLBACK_IMAGE_TTL": "60",
        ], to: &config)
        #expect(config.sources.fallbackImageData == Self.fallbackData && config.sources.fallbackImageHTTPCode == 0 && config.sources.fallbackImageTTL == 60)
        try await TestProxy.with(configure: {
            $0.sources.fallbackImageData = Self.fallbackData
            $0.sources.fallbackImageHTTPCode = 0
            $0.sources.fallbackImageTTL = 60
            $0.profile = .imgproxy
        }) { (origin, proxy) async throws in
            origin.register("/denied.jpg", .status(403))
            origin.register("/gone.jpg", .status(404))
            let denied = try await proxy.get(proxyPath("", source: origin.url("/denied.jpg")))
            #expect(denied.status == 403)  // imgproxy's status for a source's 403
            #expect(denied.header("cache-control") == "max-age=60, public")
            #expect(try ProxyImages.size(of: denied.body) == PixelSize(width: 200, height: 100))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/gone.jpg"))).status == 404)
        }
        try await TestProxy.with(configure: { $0.sources.fallbackImageData = Self.fallbackData; $0.sources.fallbackImageHTTPCode = 203 }) { (origin, proxy) async throws in
            origin.register("/gone.jpg", .status(404))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/gone.jpg"))).status == 203)
        }
    }

    @Test("a fallback image from a URL is downloaded at start-up; one that is not an image stops start-up")
    func fromURLAndChecked() async throws {
        let imageOrigin = try await TestOrigin.start()
        imageOrigin.register("/fallback.png", .image(ProxyImages.png))
        try await TestProxy.with(configure: { $0.sources.fallbackImageURL = imageOrigin.url("/fallback.png").absoluteString }) { (origin, proxy) async throws in
            origin.register("/gone.jpg", .status(404))
            let reply = try await proxy.get(proxyPath("rs:fit:20:20", source: origin.url("/gone.jpg"), extension: "png"))
            #expect(reply.status == 200)
            #expect(try ProxyImages.size(of: reply.body) == PixelSize(width: 20, height: 10))
        }
        try await imageOrigin.shutdown()

        var config = ServerConfig()
        config.sources.fallbackImageData = Data("plain text".utf8).base64EncodedString()
        #expect { try ProxyServer(config: config) } throws: { error in
            (error as? ServerConfigError)?.message.contains("fallback image is not a usable image") == true
        }
        config.sources.fallbackImageData = "not base64 !!"
        #expect(throws: ServerConfigError.self) { try config.validate() }
    }
}
