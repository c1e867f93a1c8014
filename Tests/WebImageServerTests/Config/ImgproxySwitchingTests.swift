import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// A deployment switching from imgproxy: `webimage serve` started with no flags and only
/// `IMGPROXY_*` (and `AWS_*`) variables, as imgproxy's documentation writes them, answers
/// as that documentation says.
@Suite("Switching from imgproxy with its variables only")
struct ImgproxySwitchingTests {
    @Test("bind, signing, presets, an s3:// source, status codes, caching headers, accepted values, metrics and the cache as imgproxy's documentation says")
    func switching() async throws {
        let s3 = try await MotoS3Server.shared()
        let bucketName = "switch-\(UUID().uuidString.prefix(8).lowercased())"
        _ = try await s3.makeBucket(bucketName, objects: [("photos/q.png", ProxyImages.png)])
        let origin = try await TestOrigin.start()
        let sourceETag = "\"photo-v1\""
        let sourceLastModified = "Sun, 22 Nov 2026 00:00:00 GMT"
        origin.register("/photo.jpg", handler: { request in
            if request.header("if-none-match") == sourceETag { return .notModified(headers: [("ETag", sourceETag)]) }
            return .image(ProxyImages.jpeg, headers: [("ETag", sourceETag), ("Last-Modified", sourceLastModified)])
        })
        origin.register("/private.jpg", .status(403))
        let port = try freeLoopbackPort()
        let metricsPort = try freeLoopbackPort()
        let cacheHome = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-switch-\(UUID().uuidString)").path
        // The key and salt of imgproxy's signing documentation (docs/usage/signing_url).
        let key = try SigningKey(hexKey: "736563726574", hexSalt: "68656C6C6F")
        let serve = try ServeProcess([], cacheDirectory: cacheHome + "/webimage", environment: [
            "IMGPROXY_BIND": "127.0.0.1:\(port)",
            "IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656C6C6F",
            "IMGPROXY_PRESETS": "default=resizing_type:fill/enlarge:1,sharp=sharpen:0.7,thumb=rs:fit:40:40",
            "IMGPROXY_TTL": "3600", "IMGPROXY_MAX_RESULT_DIMENSION": "100",
            "IMGPROXY_PROMETHEUS_BIND": "127.0.0.1:\(metricsPort)",
            "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
            "IMGPROXY_ALLOWED_SOURCES": "http://127.0.0.1:\(origin.port)/,s3://\(bucketName)/",
            "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": s3.endpoint,
            "AWS_ACCESS_KEY_ID": s3.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": s3.credentials.secretAccessKey,
            "AWS_REGION": "us-east-1",
            "IMGPROXY_LOG_LEVEL": "error",
            "XDG_CACHE_HOME": cacheHome,
        ], withDefaultArguments: false)
        defer {
            serve.stop()
            try? FileManager.default.removeItem(atPath: cacheHome)
        }
        // IMGPROXY_BIND is where it listens.
        #expect(serve.port == port)
        let client = serve.client

        // A signed URL with a preset: served, Cache-Control from IMGPROXY_TTL, no negotiation
        // (imgproxy's default), so a client that accepts WebP still gets the source's JPEG.
        let thumb = try await client.get(
            proxyPath("preset:thumb", source: origin.url("/photo.jpg"), key: key), headers: [("Accept", "image/webp,image/*")]
        )
        #expect(thumb.status == 200, "\(thumb.text.prefix(300))")
        #expect(thumb.header("content-type") == "image/jpeg")
        #expect(thumb.header("cache-control") == "max-age=3600, public")
        #expect(thumb.header("vary") == nil)
        #expect(try ProxyImages.size(of: thumb.body) == PixelSize(width: 40, height: 30))
        // The source's ETag and Last-Modified, passed through.
        #expect(thumb.header("etag") == sourceETag)
        #expect(thumb.header("last-modified") == sourceLastModified)
        // A CDN revalidating: answered 304 from what the proxy holds, without asking the source.
        let requests = origin.requestCount("/photo.jpg")
        let revalidated = try await client.get(proxyPath("preset:thumb", source: origin.url("/photo.jpg"), key: key), headers: [("If-None-Match", sourceETag)])
        #expect(revalidated.status == 304)
        #expect(origin.requestCount("/photo.jpg") == requests)

        // An s3:// source.
        let object = try await client.get(proxyPath("rs:fit:20:20", source: URL(string: "s3://\(bucketName)/photos/q.png")!, extension: "png", key: key))
        #expect(object.status == 200, "\(object.text.prefix(300))")

        // Values imgproxy accepts: a boolean it reads as false, a dpr above 8, sizes above
        // IMGPROXY_MAX_RESULT_DIMENSION, whose result is scaled down to it.
        let lenient = try await client.get(proxyPath("rs:fit:300:300/el:yes/dpr:9", source: origin.url("/photo.jpg"), extension: "png", key: key))
        #expect(lenient.status == 200, "\(lenient.text.prefix(300))")
        let lenientSize = try ProxyImages.size(of: lenient.body)
        #expect(max(lenientSize.width, lenientSize.height) == 100, "\(lenientSize)")

        // imgproxy keeps nothing on disk, and neither does its profile here.
        #expect(!FileManager.default.fileExists(atPath: cacheHome + "/webimage/proxy-variants"))
        #expect(!FileManager.default.fileExists(atPath: cacheHome + "/webimage/proxy-originals"))

        // Prometheus on IMGPROXY_PROMETHEUS_BIND with imgproxy's names; /metrics on the
        // proxy's port is a proxy path (here a malformed one: no options or source).
        let scrape = try await LiveClient(port: metricsPort).get("/metrics")
        #expect(scrape.status == 200)
        for name in ["requests_total 4", "status_codes_total{status=\"200\"} 3", "status_codes_total{status=\"304\"} 1", "workers "] {
            #expect(scrape.text.contains("\n" + name), "\(name)")
        }
        #expect(try await client.get("/metrics").status == 404)

        // imgproxy's status codes: a bad signature 403; a malformed URL, an unknown option or
        // a source outside the allowed ones 404; a source's own 403 passed on.
        #expect(try await client.get(proxyPath("preset:thumb", source: origin.url("/photo.jpg"))).status == 403)
        #expect(try await client.get(proxyPath("nonsense:1", source: origin.url("/photo.jpg"), key: key)).status == 404)
        #expect(try await client.get("/" + ProxyURLParser.signature(for: "/x", key: key)).status == 404)
        #expect(try await client.get(proxyPath("", source: URL(string: "http://127.0.0.2:1/elsewhere.jpg")!, key: key)).status == 404)
        #expect(try await client.get(proxyPath("", source: origin.url("/private.jpg"), key: key)).status == 403)
        try await origin.shutdown()
    }
}
