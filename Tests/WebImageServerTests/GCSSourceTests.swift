import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// `gs://` sources through the proxy, from fake-gcs-server on 127.0.0.1 and, with a service
/// account, from the in-process test origin.
@Suite("gs:// sources in the proxy")
struct GCSSourceTests {
    /// A bucket of the test's own holding `objects`; its name.
    private func bucket(_ server: FakeGCSServer, objects: [(name: String, data: Data)]) async throws -> String {
        let name = "proxy-\(UUID().uuidString.prefix(8).lowercased())"
        try await server.makeBucket(name, objects: objects)
        return name
    }

    /// GCS on, from `endpoint`.
    private func useGCS(_ endpoint: String) -> (inout ServerConfig) -> Void {
        { config in
            config.sources.useGCS = true
            config.sources.gcsEndpoint = endpoint
        }
    }

    /// `source` base64url-encoded in an unsigned proxy path, written as it is (no URL made of it).
    private func encodedPath(_ source: String, extension ext: String = "png") -> String {
        let encoded = Data(source.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "/insecure/\(encoded).\(ext)"
    }

    @Test("an object is served, resized; a missing one answers 404")
    func objectServed() async throws {
        let server = try await FakeGCSServer.shared()
        let bucket = try await bucket(server, objects: [("images/q.png", ProxyImages.png)])
        let proxy = try await TestProxy.start(configure: useGCS(server.endpoint))
        defer { Task { await proxy.stop() } }
        let reply = try await proxy.get(proxyPath("rs:fit:50:50", source: URL(string: "gs://\(bucket)/images/q.png")!, extension: "png"))
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        #expect(try ProxyImages.size(of: reply.body) == PixelSize(width: 50, height: 25))

        let missing = try await proxy.get(proxyPath("", source: URL(string: "gs://\(bucket)/images/none.png")!))
        #expect(missing.status == 404)
    }

    @Test("an object's name is the source as written: spaces, '%', '#', '+' and non-ASCII letters included")
    func namesAsWritten() async throws {
        let server = try await FakeGCSServer.shared()
        let names = ["odd name%20#1.png", "a+b/Zürich 写真.png"]
        let bucket = try await bucket(server, objects: names.map { (name: $0, data: ProxyImages.png) })
        let proxy = try await TestProxy.start(configure: useGCS(server.endpoint))
        defer { Task { await proxy.stop() } }
        for name in names {
            let reply = try await proxy.get(encodedPath("gs://\(bucket)/\(name)"))
            #expect(reply.status == 200, "\(name): \(reply.text.prefix(300))")
        }
    }

    @Test("the allowed sources take gs://<bucket>/ entries; the bucket lists hold gs:// sources to their buckets")
    func allowedSourcesAndBuckets() async throws {
        let server = try await FakeGCSServer.shared()
        let allowed = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        let other = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        #expect(SourceGuard.problem(withPrefix: "gs://\(allowed)/") == nil)
        #expect(SourceGuard.problem(withPrefix: "gs://\(allowed)")?.contains("after the bucket") == true)
        let byPrefix = try await TestProxy.start(configure: { config in
            useGCS(server.endpoint)(&config)
            config.sources.allowedSources = ["gs://\(allowed)/"]
        })
        defer { Task { await byPrefix.stop() } }
        #expect(try await byPrefix.get(proxyPath("", source: URL(string: "gs://\(allowed)/q.png")!)).status == 200)
        let outside = try await byPrefix.get(proxyPath("", source: URL(string: "gs://\(other)/q.png")!))
        #expect(outside.status == 404)
        #expect(outside.text.contains("allowed source prefix"))

        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_GCS_ALLOWED_BUCKETS": "\(allowed),\(other)", "IMGPROXY_GCS_DENIED_BUCKETS": other], to: &config)
        let byBucket = try await TestProxy.start(configure: { start in
            useGCS(server.endpoint)(&start)
            start.sources.gcsAllowedBuckets = config.sources.gcsAllowedBuckets
            start.sources.gcsDeniedBuckets = config.sources.gcsDeniedBuckets
        })
        defer { Task { await byBucket.stop() } }
        #expect(try await byBucket.get(proxyPath("", source: URL(string: "gs://\(allowed)/q.png")!)).status == 200)
        let denied = try await byBucket.get(proxyPath("", source: URL(string: "gs://\(other)/q.png")!))
        #expect(denied.status == 404)
        #expect(denied.text.contains("IMGPROXY_GCS_DENIED_BUCKETS"))
    }

    @Test("with GCS off, a gs:// source answers 404 naming the setting that turns it on")
    func gcsOff() async throws {
        let proxy = try await TestProxy.start()
        defer { Task { await proxy.stop() } }
        let reply = try await proxy.get(proxyPath("", source: URL(string: "gs://bucket/q.png")!))
        #expect(reply.status == 404)
        #expect(reply.text.contains("IMGPROXY_USE_GCS"))
    }

    @Test("a GCS endpoint on loopback is trusted by its own setting, without --allow-loopback; an http source there is still refused")
    func endpointTrustedBySetting() async throws {
        let server = try await FakeGCSServer.shared()
        let bucket = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        let proxy = try await TestProxy.start(configure: { config in
            useGCS(server.endpoint)(&config)
            config.sources.allowLoopback = false
        })
        defer { Task { await proxy.stop() } }
        let reply = try await proxy.get(proxyPath("", source: URL(string: "gs://\(bucket)/q.png")!))
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        let direct = try await proxy.get(proxyPath("", source: try #require(URL(string: server.endpoint + "/storage/v1/b/\(bucket)/o/q.png?alt=media"))))
        #expect(direct.status == 403, "\(direct.text.prefix(300))")
    }

    @Test("with IMGPROXY_GCS_KEY, the proxy asks the key's token endpoint once and sends the token; a refused object answers 403")
    func serviceAccount() async throws {
        let origin = try await TestOrigin.start()
        let account = try TestServiceAccount(origin: origin)
        origin.register("/storage/v1/b/photos/o/q.png") { request in
            request.header("authorization") == "Bearer token-1" ? .image(ProxyImages.png) : .status(401)
        }
        origin.register("/storage/v1/b/photos/o/secret.png", .status(403))
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(
            ["IMGPROXY_USE_GCS": "true", "IMGPROXY_GCS_KEY": account.json, "IMGPROXY_GCS_ENDPOINT": origin.baseURL.absoluteString + "/storage/v1/"], to: &config
        )
        let proxy = try await TestProxy.start(configure: { start in
            start.sources.useGCS = config.sources.useGCS
            start.sources.gcsKey = config.sources.gcsKey
            start.sources.gcsEndpoint = config.sources.gcsEndpoint
        })
        defer { Task { await proxy.stop(); try? await origin.shutdown() } }
        for size in [20, 30] {
            let reply = try await proxy.get(proxyPath("rs:fit:\(size):\(size)", source: URL(string: "gs://photos/q.png")!, extension: "png"))
            #expect(reply.status == 200, "\(reply.text.prefix(300))")
        }
        #expect(origin.requestCount(account.tokenPath) == 1)
        let refused = try await proxy.get(proxyPath("", source: URL(string: "gs://photos/secret.png")!))
        #expect(refused.status == 403)
    }

    @Test("webimage serve started with IMGPROXY_USE_GCS and IMGPROXY_GCS_ENDPOINT only serves a gs:// source")
    func serveWithVariables() async throws {
        let server = try await FakeGCSServer.shared()
        let bucket = try await bucket(server, objects: [("q.png", ProxyImages.png)])
        let serve = try ServeProcess(environment: [
            "IMGPROXY_USE_GCS": "true", "IMGPROXY_GCS_ENDPOINT": server.endpoint, "IMGPROXY_ALLOWED_SOURCES": "gs://\(bucket)/",
        ])
        defer { serve.stop() }
        let reply = try await serve.client.get(proxyPath("rs:fit:20:20", source: URL(string: "gs://\(bucket)/q.png")!, extension: "png"))
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        #expect(try ProxyImages.size(of: reply.body) == PixelSize(width: 20, height: 10))
    }
}
