import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// imgproxy's configuration, `local://` and `enc/` sources, only-presets mode, the offline example.
@Suite("imgproxy configuration and sources")
struct ImgproxyCompatibilityTests {
    /// The repository's Samples/ folder.
    static let samples = TestImages.samplesDirectory.path

    @Test("IMGPROXY_* variables map with imgproxy's formats; unknown ones are listed")
    func environmentMapping() throws {
        var config = ServerConfig()
        let unknown = try ImgproxyEnvironment.apply([
            "IMGPROXY_KEY": "736563726574, 6b6579", "IMGPROXY_SALT": "68656c6c6f,73616c74", "IMGPROXY_BIND": ":9091",
            "IMGPROXY_SIGNATURE_SIZE": "8", "IMGPROXY_TRUSTED_SIGNATURES": "abc, def","IMGPROXY_MAX_SRC_RESOLUTION": "12.5", "IMGPROXY_MAX_SRC_FILE_SIZE": "0",
            "IMGPROXY_MAX_ANIMATION_FRAMES": "7", "IMGPROXY_MAX_RESULT_DIMENSION": "4000", "IMGPROXY_WORKERS": "3",
            "IMGPROXY_TTL": "60", "IMGPROXY_QUALITY": "70", "IMGPROXY_FORMAT_QUALITY": "webp=60,avif=50,jxl=77",
            "IMGPROXY_ENABLE_WEBP_DETECTION": "false", "IMGPROXY_ENFORCE_AVIF": "t", "IMGPROXY_ALLOWED_SOURCES": "https://a.example.com,https://*.b.example/img/",
            "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES": "true", "IMGPROXY_PRESETS": "thumb=rs:fill:100:100, small = w:50",
            "IMGPROXY_ONLY_PRESETS": "1", "IMGPROXY_USE_ETAG": "false", "IMGPROXY_LOCAL_FILESYSTEM_ROOT": Self.samples,
            "IMGPROXY_SOURCE_URL_ENCRYPTION_KEY": String(repeating: "ab", count: 32), "IMGPROXY_WATERMARK_OPACITY": "0.5",
            "IMGPROXY_DOWNLOAD_TIMEOUT": "3", "IMGPROXY_TIMEOUT": "20", "IMGPROXY_ALLOW_SECURITY_OPTIONS": "TRUE",
            "IMGPROXY_PRESERVE_HDR": "true", "IMGPROXY_USE_ABS": "false", "IMGPROXY_WRITE_RESPONSE_TIMEOUT": "", "WEBIMAGE_PORT": "1",
            "IMGPROXY_READ_REQUEST_TIMEOUT": "4", "IMGPROXY_READ_TIMEOUT": "9", "IMGPROXY_KEEP_ALIVE_TIMEOUT": "0", "IMGPROXY_MAX_CLIENTS": "0",
        ], to: &config)
        try config.validate()
        // Set but not applied; an empty variable is skipped.
        #expect(unknown == ["IMGPROXY_PRESERVE_HDR", "IMGPROXY_USE_ABS"])
        #expect(ImgproxyEnvironment.warning(ignored: unknown)?.hasPrefix("ignoring 2 imgproxy settings: IMGPROXY_PRESERVE_HDR (") == true)
        #expect(ImgproxyEnvironment.warning(ignored: []) == nil)
        #expect(config.signing.keys == ["736563726574", "6b6579"] && config.signing.salts.count == 2)
        #expect(config.listen.host == "0.0.0.0" && config.listen.port == 9091)
        #expect(config.signing.signatureSize == 8)
        #expect(config.signing.trustedSignatures == ["abc", "def"])
        #expect(config.limits.maxSourceResolution == 12_500_000)
        #expect(config.limits.maxSourceBytes == ServerConfig().limits.maxSourceBytes)  // imgproxy's 0 (no limit) keeps ours
        #expect(config.limits.maxAnimationFrames == 7 && config.limits.maxResultDimension == 4000 && config.limits.workers == 3)
        #expect(config.caching.ttl == 60 && config.encoding.defaultQuality == 70)
        #expect(config.encoding.formatQuality == [.webp: 60, .avif: 50, .jxl: 77])
        #expect(!config.encoding.autoWebP && config.encoding.enforceAVIF)
        #expect(config.sources.allowedSources == ["https://a.example.com/", "https://*.b.example/img/"])
        #expect(config.sources.allowPrivate && !config.sources.allowLoopback)
        #expect(config.signing.presets == ["thumb": "rs:fill:100:100", "small": "w:50"])
        #expect(config.signing.onlyPresets && !config.responses.useETag && config.signing.allowSecurityOptions)
        #expect(config.sources.localFilesystemRoot == Self.samples)
        #expect(config.encoding.watermarkOpacity == 0.5)
        #expect(config.sources.downloadTimeout == .seconds(3) && config.limits.requestTimeout == .seconds(20))
        // The current name wins over the former one; keep-alive 0 is off; imgproxy's 0 clients (no limit) keeps ours.
        #expect(config.listen.readRequestTimeout == .seconds(4))
        #expect(config.listen.keepAliveTimeout == .zero)
        #expect(config.listen.maxClients == ServerConfig().listen.maxClients)
    }

    @Test("WEBIMAGE_* and flags win over IMGPROXY_*")
    func precedence() throws {
        var config = ServerConfig()
        let environment = ["IMGPROXY_WORKERS": "3", "WEBIMAGE_WORKERS": "5", "IMGPROXY_TTL": "60", "IMGPROXY_QUALITY": "70"]
        try ImgproxyEnvironment.apply(environment, to: &config)
        try ServerSetting.apply(environment: environment, to: &config)
        try ServerSetting.quality.apply(["90"], to: &config)
        #expect(config.limits.workers == 5 && config.caching.ttl == 60 && config.encoding.defaultQuality == 90)
    }

    @Test("bad IMGPROXY_* values are errors naming the variable", arguments: [
        ("IMGPROXY_WORKERS", "many"), ("IMGPROXY_BIND", "localhost"), ("IMGPROXY_ENFORCE_WEBP", "maybe"),
        ("IMGPROXY_FORMAT_QUALITY", "webp"), ("IMGPROXY_PRESETS", "thumb"), ("IMGPROXY_MAX_SRC_RESOLUTION", "big"),
        ("IMGPROXY_PRESETS_PATH", "/nonexistent/webimage-presets"), ("IMGPROXY_READ_TIMEOUT", "soon"),
    ])
    func badValues(name: String, value: String) {
        var config = ServerConfig()
        do {
            try ImgproxyEnvironment.apply([name: value], to: &config)
            Issue.record("\(name)=\(value) was accepted")
        } catch {
            #expect(error.message.contains(name), "\(error.message)")
        }
    }

    @Test("bad settings fail validation: missing root, short encryption key, quality out of range")
    func badSettings() {
        for change in [{ (c: inout ServerConfig) in c.sources.localFilesystemRoot = "/nonexistent/webimage" },
                       { $0.signing.sourceURLEncryptionKey = "abcd" }, { $0.encoding.formatQuality = [.webp: 0] },
                       { $0.signing.onlyPresets = true }, { $0.encoding.watermarkOpacity = 2 }] {
            var config = ServerConfig()
            change(&config)
            #expect(throws: ServerConfigError.self) { try config.validate() }
        }
    }

    @Test("allowed-source patterns: '*' matches within one path segment")
    func patterns() {
        let pattern = SourcePattern("https://*.example.com/img/")
        #expect(pattern.matches("https://cdn.example.com/img/a.jpg"))
        #expect(!pattern.matches("https://cdn.evil.org/x.example.com/img/a.jpg"))
        #expect(!pattern.matches("https://cdn.example.com/other/a.jpg"))
        #expect(SourcePattern("https://Example.com/").matches(SourceGuard.normalized("HTTPS://EXAMPLE.com/a.jpg")))
        #expect(SourceGuard.problem(withPrefix: "https://*.example.com/") == nil)
    }

    @Test("local:// sources are served from the root and cached; traversal is refused")
    func localSources() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-root-\(UUID().uuidString)").path
        let outside = root + "-outside"
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root); try? FileManager.default.removeItem(atPath: outside) }
        try ProxyImages.jpeg.write(to: URL(fileURLWithPath: root + "/sub/a.jpg"))
        try ProxyImages.jpeg.write(to: URL(fileURLWithPath: outside + "/secret.jpg"))
        try FileManager.default.createSymbolicLink(atPath: root + "/escape.jpg", withDestinationPath: outside + "/secret.jpg")
        try FileManager.default.createSymbolicLink(atPath: root + "/inside.jpg", withDestinationPath: root + "/sub/a.jpg")

        try await TestProxy.with(configure: { $0.sources.localFilesystemRoot = root }) { (_, proxy) async throws in
            let ok = try await proxy.get("/insecure/rs:fit:20:20/plain/local:///sub/a.jpg")
            #expect(ok.status == 200)
            #expect(ok.header("content-type") == "image/jpeg")
            // The second request is a variant cache hit, as for a download.
            _ = try await proxy.get("/insecure/rs:fit:20:20/plain/local:///sub/a.jpg")
            #expect(try await proxy.metric("webimage_cache_hits_total{type=\"memory\"}") == 1)
            #expect(try await proxy.get("/insecure/plain/local:///inside.jpg").status == 200)
            // imgproxy answers 404 for paths outside its root; a symbolic link out is a refused source (403).
            for (path, status) in [
                ("/insecure/plain/local:///../\(URL(fileURLWithPath: outside).lastPathComponent)/secret.jpg", 404),
                ("/insecure/plain/local:///sub/%2e%2e/%2e%2e/etc/passwd", 404),
                ("/insecure/plain/local:///sub/%252e%252e/a.jpg", 404),
                ("/insecure/plain/local:////etc/passwd", 404),
                ("/insecure/plain/local://etc/passwd", 404),
                ("/insecure/plain/local:///missing.jpg", 404),
                ("/insecure/plain/local:///sub/", 404),
                ("/insecure/plain/local:///escape.jpg", 403),
            ] {
                #expect(try await proxy.get(path).status == status, "\(path)")
            }
        }
        // Without a root, local:// is off.
        try await TestProxy.with { (_, proxy) async throws in
            let reply = try await proxy.get("/insecure/plain/local:///sub/a.jpg")
            #expect(reply.status == 404)
            #expect(reply.text.contains("--local-filesystem-root"))
        }
    }

    @Test("enc/ sources: round trip with a key; wrong key and no key are clear 400s")
    func encryptedSources() async throws {
        let key = "1eb5b0e971ad7f45324c1bb15c947cb207c43152fa5c6c7f35c4f36e0c18e0f1"
        let cipher = try SourceURLCipher(hexKey: key)
        try await TestProxy.with(configure: { $0.signing.sourceURLEncryptionKey = key }) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let payload = try cipher.encrypt(origin.url("/a.jpg").absoluteString, iv: Array(0..<16))
            let ok = try await proxy.get("/insecure/rs:fit:20:20/enc/\(payload).png")
            #expect(ok.status == 200)
            #expect(ok.header("content-type") == "image/png")
            // Split into chunks like base64 sources.
            let chunked = payload.prefix(10) + "/" + payload.dropFirst(10)
            #expect(try await proxy.get("/insecure/enc/\(chunked)").status == 200)
            let other = try SourceURLCipher(hexKey: String(repeating: "0f", count: 32))
            let wrong = try await proxy.get("/insecure/enc/\(try other.encrypt(origin.url("/a.jpg").absoluteString, iv: Array(0..<16)))")
            #expect(wrong.status == 400)
            #expect(wrong.text.contains("enc/"))
            #expect(try await proxy.get("/insecure/enc/AAAA").status == 400)
        }
        try await TestProxy.with { (_, proxy) async throws in
            let reply = try await proxy.get("/insecure/enc/" + (try cipher.encrypt("http://127.0.0.1/a.jpg", iv: Array(0..<16))))
            #expect(reply.status == 400)
            #expect(reply.text.contains("IMGPROXY_SOURCE_URL_ENCRYPTION_KEY"))
        }
    }

    @Test("trusted signatures pass a signing server without a check; others are still checked")
    func trustedSignatures() async throws {
        try await TestProxy.with(configure: { config in
            config.signing.keys = ["736563726574"]
            config.signing.salts = ["68656c6c6f"]
            config.signing.trustedSignatures = ["signed-elsewhere"]
        }) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let source = "/rs:fit:20:20/plain/\(origin.url("/a.jpg").absoluteString)"
            #expect(try await proxy.get("/signed-elsewhere" + source).status == 200)
            #expect(try await proxy.get("/signed-nowhere" + source).status == 403)
            #expect(try await proxy.get("/insecure" + source).status == 403)
        }
    }

    @Test("only-presets mode: the options segment is ':'-separated preset names")
    func onlyPresets() throws {
        let parser = ProxyURLParser(keys: [], presets: ["thumb": "rs:fill:100:50", "sharp": "q:90"], onlyPresets: true)
        let request = try parser.parse(path: "/insecure/thumb:sharp/plain/http://example.com/a.jpg")
        #expect(request.options.width == 100 && request.options.height == 50 && request.options.quality == 90)
        #expect(request.source.absoluteString == "http://example.com/a.jpg")
        for bad in ["/insecure/w:100/plain/http://example.com/a.jpg", "/insecure/nope/plain/http://example.com/a.jpg",
                    "/insecure/thumb::sharp/plain/http://example.com/a.jpg"] {
            #expect(throws: ProxyError.self, "\(bad)") { try parser.parse(path: bad) }
        }
    }

    @Test("the example URL printed at start-up returns the shipped sample offline, signed or not")
    func offlineExample() async throws {
        for signed in [false, true] {
            try await TestProxy.with(configure: { config in
                config.sources.localFilesystemRoot = Self.samples
                if signed { config.signing.keys = ["736563726574"]; config.signing.salts = ["68656c6c6f"] }
            }) { (_, proxy) async throws in
                let path = proxy.server.config.examplePath()
                #expect(path.contains("/plain/local:///sample.jpg"))
                let reply = try await proxy.get(path)
                #expect(reply.status == 200, "\(path): \(reply.text.prefix(200))")
                #expect(reply.header("content-type")?.hasPrefix("image/") == true)
            }
        }
    }
}
