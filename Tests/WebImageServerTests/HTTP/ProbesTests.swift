import Foundation
import HTTPTypes
import Testing
import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// What load balancers, platforms and container health checks ask of a proxy: `/`, `HEAD`,
/// `/health`, `PORT` and a path prefix written as their users write it.
@Suite("Probes and platforms")
struct ProbesTests {
    @Test("GET / answers 200 with a landing page, and HEAD / its headers, without the playground")
    func landing() async throws {
        try await TestProxy.with { (_, proxy) async throws in
            let page = try await proxy.get("/")
            #expect(page.status == 200)
            #expect(page.header("content-type") == "text/html; charset=utf-8")
            #expect(page.text.contains("WebImage is running"))
            let head = try await proxy.request(.head, "/")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("content-length") == String(page.body.count))
        }
    }

    @Test("under imgproxy's profile, /health says imgproxy's words and HEAD on an image path is 200 without asking the source")
    func imgproxyProbes() async throws {
        try await TestProxy.with(configure: { $0.profile = .imgproxy }) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            #expect(try await proxy.get("/health").text == "imgproxy is running")
            let path = proxyPath("rs:fit:40:40", source: origin.url("/a.jpg"))
            for probe in [path, "/info" + path, "/no/such/thing"] {
                let head = try await proxy.request(.head, probe)
                #expect(head.status == 200, "\(probe)")
                #expect(head.body.isEmpty && head.header("content-type") == "text/plain; charset=utf-8", "\(probe)")
            }
            #expect(origin.requestCount("/a.jpg") == 0)
            // A GET still makes the image.
            #expect(try await proxy.get(path).status == 200)
            #expect(origin.requestCount("/a.jpg") == 1)
        }
    }

    @Test("under WebImage's profile, HEAD on an image path answers the headers a GET would")
    func webimageHead() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let head = try await proxy.request(.head, proxyPath("rs:fit:40:40", source: origin.url("/a.jpg")))
            #expect(head.status == 200 && head.header("content-type") == "image/jpeg")
            #expect(origin.requestCount("/a.jpg") == 1)
        }
    }

    /// Prefixes as deployments write them, and what each is read as (imgproxy's reading of
    /// `IMGPROXY_PATH_PREFIX` and `IMGPROXY_HEALTH_CHECK_PATH`: config/configurators).
    static let paths: [(written: String, read: String?)] = [
        ("images", "/images"), ("/images/", "/images"), ("/images", "/images"), ("images/", "/images"),
        ("/images?x=1", "/images"), ("/images#top", "/images"), ("/a/b/", "/a/b"), ("/", nil), ("", nil),
    ]

    @Test("IMGPROXY_PATH_PREFIX and IMGPROXY_HEALTH_CHECK_PATH are read as imgproxy reads them; the flags alike", arguments: paths)
    func pathsNormalised(_ example: (written: String, read: String?)) throws {
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_PATH_PREFIX": example.written, "IMGPROXY_HEALTH_CHECK_PATH": example.written], to: &config)
        #expect(config.listen.pathPrefix == example.read)
        #expect(config.listen.healthCheckPath == example.read)
        try config.validate()
        var flagged = ServerConfig()
        try ServerSettingArguments(["--path-prefix", example.written]).apply(to: &flagged)
        #expect(flagged.listen.pathPrefix == example.read)
    }

    @Test("a prefix written without its slashes serves every path under it")
    func unslashedPrefixServes() async throws {
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_PATH_PREFIX": "images/"], to: &config)
        let prefix = try #require(config.listen.pathPrefix)
        try await TestProxy.with(configure: { $0.listen.pathPrefix = prefix }) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            #expect(try await proxy.get("/images/health").status == 200)
            #expect(try await proxy.get("/images" + proxyPath("rs:fit:40:40", source: origin.url("/a.jpg"))).status == 200)
        }
    }

    @Test("PORT sets the port on every interface; IMGPROXY_BIND and the port setting win; a PORT that is no port is named")
    func platformPort() throws {
        var config = ServerConfig()
        try config.listen.readPlatformPort(["PORT": "9090"])
        #expect(config.listen.port == 9090 && config.listen.host == "0.0.0.0")
        try ImgproxyEnvironment.apply(["IMGPROXY_BIND": "127.0.0.2:7070"], to: &config)
        #expect(config.listen.port == 7070 && config.listen.host == "127.0.0.2")

        var unset = ServerConfig()
        try unset.listen.readPlatformPort([:])
        try unset.listen.readPlatformPort(["PORT": ""])
        #expect(unset.listen.port == 8080 && unset.listen.host == "127.0.0.1")

        var flagged = ServerConfig()
        try flagged.listen.readPlatformPort(["PORT": "9090"])
        try ServerSettingArguments(["--port", "8181"]).apply(to: &flagged)
        #expect(flagged.listen.port == 8181)

        for bad in ["http", "-1", "65536", "80 80"] {
            var config = ServerConfig()
            #expect { try config.listen.readPlatformPort(["PORT": bad]) } throws: { error in
                let message = (error as? ServerConfigError)?.message ?? ""
                return message.hasPrefix("PORT: '\(bad)'") && message.contains("--port")
            }
        }
    }

    @Test("the health check's URL follows the listen settings: loopback for every interface, the prefix")
    func healthURL() throws {
        var listen = ServerConfig.Listen()
        #expect(ProxyHealthCheck.url(for: listen) == "http://127.0.0.1:8080/health")
        listen.host = "0.0.0.0"
        listen.port = 9000
        listen.pathPrefix = "/images"
        #expect(ProxyHealthCheck.url(for: listen) == "http://127.0.0.1:9000/images/health")
        listen.host = "::"
        #expect(ProxyHealthCheck.url(for: listen) == "http://[::1]:9000/images/health")
        listen.host = "fd00::1"
        #expect(ProxyHealthCheck.url(for: listen) == "http://[fd00::1]:9000/images/health")
        #expect(try ProxyHealthCheck.url(from: "http://127.0.0.1:8080") == "http://127.0.0.1:8080/health")
        #expect(try ProxyHealthCheck.url(from: "http://127.0.0.1:8080/") == "http://127.0.0.1:8080/health")
        #expect(try ProxyHealthCheck.url(from: "http://127.0.0.1:8080/healthz") == "http://127.0.0.1:8080/healthz")
        #expect(throws: ImageError.self) { try ProxyHealthCheck.url(from: "127.0.0.1:8080") }
        #expect(throws: ImageError.self) { try ProxyHealthCheck.url(from: "ftp://127.0.0.1/") }
    }

    @Test("the health check asks a running proxy: healthy on its 200, an error when nothing listens")
    func healthCheckAsks() async throws {
        try await TestProxy.with(transport: .socket) { (_, proxy) async throws in
            let answer = try await ProxyHealthCheck.check(try ProxyHealthCheck.url(from: "http://127.0.0.1:\(proxy.port)"))
            #expect(answer.isHealthy && answer.body == "ok\n")
        }
        let closed = try freeLoopbackPort()
        await #expect(throws: ImageError.self) { try await ProxyHealthCheck.check("http://127.0.0.1:\(closed)/health", timeout: .seconds(10)) }
    }
}

/// `X-Request-ID` on every answer, as imgproxy's router sets it (server/router.go, and its
/// TestRequestID cases).
@Suite("Request IDs")
struct RequestIDTests {
    @Test("every answer carries an X-Request-ID: the client's when it is a plain token, a new one otherwise")
    func requestIDs() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let image = proxyPath("rs:fit:40:40", source: origin.url("/a.jpg"))
            for path in [image, "/health", "/", "/insecure/rs:what:1/abc", "/favicon.ico"] {
                let given = try await proxy.get(path, headers: [("X-Request-ID", "valid-id_123")])
                #expect(given.header("x-request-id") == "valid-id_123", "\(path): \(given.status)")
                let made = try await proxy.get(path)
                let id = try #require(made.header("x-request-id"), "\(path)")
                #expect(!id.isEmpty && id != "valid-id_123")
                let refused = try await proxy.get(path, headers: [("X-Request-ID", "invalid id with spaces!")])
                #expect(refused.header("x-request-id").map { !$0.isEmpty && $0 != "invalid id with spaces!" } == true, "\(path)")
            }
            let long = String(repeating: "a", count: 129)
            #expect(try await proxy.get("/health", headers: [("X-Request-ID", long)]).header("x-request-id") != long)
            #expect(try await proxy.get("/health", headers: [("X-Request-ID", String(long.dropLast()))]).header("x-request-id") == String(long.dropLast()))
        }
    }
}
