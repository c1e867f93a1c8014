import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// imgproxy's defaults and status codes (the imgproxy profile), its security settings, and
/// every variable of imgproxy's code accounted for.
@Suite("imgproxy profile, status codes and variables")
struct ImgproxyProfileTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("the profile is imgproxy's when any IMGPROXY_* variable has a value, unless told otherwise")
    func profileChoice() {
        #expect(ServerProfile.chosen(environment: [:], imgproxyDefaults: nil) == .webimage)
        #expect(ServerProfile.chosen(environment: ["IMGPROXY_TTL": "60"], imgproxyDefaults: nil) == .imgproxy)
        #expect(ServerProfile.chosen(environment: ["IMGPROXY_TTL": " "], imgproxyDefaults: nil) == .webimage)
        #expect(ServerProfile.chosen(environment: ["WEBIMAGE_TTL": "60"], imgproxyDefaults: nil) == .webimage)
        #expect(ServerProfile.chosen(environment: ["IMGPROXY_TTL": "60"], imgproxyDefaults: false) == .webimage)
        #expect(ServerProfile.chosen(environment: [:], imgproxyDefaults: true) == .imgproxy)
        #expect(ServerProfile.imgproxy.startupLine(imgproxyDefaults: nil, host: "0.0.0.0").contains("imgproxy's defaults"))
        #expect(ServerProfile.webimage.startupLine(imgproxyDefaults: nil, host: "127.0.0.1").contains("WebImage's defaults (bound to 127.0.0.1,"))
        #expect(ServerProfile.webimage.startupLine(imgproxyDefaults: nil, host: "0.0.0.0").contains("bound to 0.0.0.0,"), "the address bound, not the default")
    }

    /// imgproxy's defaults, from the `NewDefaultConfig` functions of its server, security,
    /// processing, fetcher and transport packages (v4.0).
    @Test("the imgproxy profile starts from imgproxy's defaults; WebImage's keeps its own")
    func imgproxyDefaults() throws {
        let imgproxy = ServerProfile.imgproxy.defaults
        #expect(imgproxy.profile == .imgproxy)
        #expect(imgproxy.listen.host == "0.0.0.0" && imgproxy.listen.port == 8080)
        #expect(imgproxy.sources.allowPrivate && !imgproxy.sources.allowLoopback && !imgproxy.sources.allowLinkLocal)
        #expect(!imgproxy.encoding.autoWebP && !imgproxy.encoding.autoAVIF && !imgproxy.encoding.enforceWebP && !imgproxy.encoding.enforceAVIF)
        #expect(imgproxy.encoding.preferredFormats == [.jpeg, .png, .gif])
        #expect(imgproxy.limits.maxAnimationFrames == 1 && imgproxy.limits.maxSourceResolution == 50_000_000)
        #expect(imgproxy.limits.maxResultDimension == ServerProfile.unboundedResultDimension)
        #expect(imgproxy.encoding.keepCopyright && imgproxy.encoding.stripMetadata && imgproxy.encoding.stripColorProfile && imgproxy.encoding.autoRotate && !imgproxy.encoding.enforceThumbnail)
        #expect(imgproxy.encoding.formatQuality == [.webp: 79, .avif: 63, .jxl: 77] && imgproxy.encoding.defaultQuality == 80)
        #expect(imgproxy.sources.downloadTimeout == .seconds(5) && imgproxy.limits.requestTimeout == .seconds(10))
        #expect(imgproxy.listen.readRequestTimeout == .seconds(10) && imgproxy.listen.keepAliveTimeout == .seconds(10) && imgproxy.listen.maxClients == 2048)
        #expect(imgproxy.caching.ttl == 31_536_000 && imgproxy.signing.signatureSize == 32 && imgproxy.sources.maxRedirects == 10)
        try imgproxy.validate()
        var s3 = imgproxy
        s3.sources.useS3 = true
        #expect(try s3.sources.s3Configuration(profile: s3.profile)?.region == "us-west-1")
        s3.sources.s3Environment = ["AWS_REGION": "eu-west-1"]
        #expect(try s3.sources.s3Configuration(profile: s3.profile)?.region == "eu-west-1")
        var ownS3 = ServerConfig()
        ownS3.sources.useS3 = true
        #expect(try ownS3.sources.s3Configuration(profile: ownS3.profile)?.region == "us-east-1")

        let own = ServerProfile.webimage.defaults
        #expect(own.profile == .webimage && own.listen.host == "127.0.0.1" && !own.sources.allowPrivate && own.encoding.autoWebP && own.encoding.autoAVIF)
        #expect(own.limits.maxAnimationFrames == 100 && own.limits.maxResultDimension == 8192 && !own.encoding.keepCopyright && own.encoding.formatQuality.isEmpty)
    }

    @Test("under the imgproxy profile, IMGPROXY_MAX_RESULT_DIMENSION=0 keeps no bound; variables still win")
    func variablesOverProfile() throws {
        var config = ServerProfile.imgproxy.defaults
        try ImgproxyEnvironment.apply(["IMGPROXY_MAX_RESULT_DIMENSION": "0", "IMGPROXY_AUTO_WEBP": "true", "IMGPROXY_KEEP_COPYRIGHT": "false"], to: &config)
        #expect(config.limits.maxResultDimension == ServerProfile.unboundedResultDimension)
        #expect(config.encoding.autoWebP && !config.encoding.keepCopyright)
    }

    // MARK: - Status codes, one row each of imgproxy's error table

    /// One case: the error, WebImage's status and imgproxy's (from imgproxy's `errors.go`
    /// files: handlers, fetcher, security, options/parser, server, workers).
    struct StatusRow: Sendable, CustomTestStringConvertible {
        let name: String
        let error: ProxyError
        let webimage: Int
        let imgproxy: Int
        var testDescription: String { name }
    }

    static let statusRows: [StatusRow] = [
        StatusRow(name: "malformed URL", error: .badRequest("unknown option"), webimage: 400, imgproxy: 404),
        StatusRow(name: "wrong signature", error: .forbidden("invalid signature"), webimage: 403, imgproxy: 403),
        StatusRow(name: "source address refused", error: ProxyError(.forbiddenSource("loopback")), webimage: 403, imgproxy: 404),
        StatusRow(name: "source unreachable", error: ProxyError(.network("connection refused")), webimage: 502, imgproxy: 404),
        StatusRow(name: "source credentials unavailable", error: ProxyError(.credentialsUnavailable("STS refused")), webimage: 502, imgproxy: 404),
        StatusRow(name: "source response unreadable", error: ProxyError(.invalidResponse("bad chunk")), webimage: 502, imgproxy: 404),
        StatusRow(name: "source 404", error: ProxyError(.invalidStatusCode(404)), webimage: 404, imgproxy: 404),
        StatusRow(name: "source 410", error: ProxyError(.invalidStatusCode(410)), webimage: 410, imgproxy: 410),
        StatusRow(name: "source 403", error: ProxyError(.invalidStatusCode(403)), webimage: 502, imgproxy: 403),
        StatusRow(name: "source 429", error: ProxyError(.invalidStatusCode(429)), webimage: 502, imgproxy: 429),
        StatusRow(name: "source 500", error: ProxyError(.invalidStatusCode(500)), webimage: 502, imgproxy: 502),
        StatusRow(name: "source 503", error: ProxyError(.invalidStatusCode(503)), webimage: 502, imgproxy: 502),
        StatusRow(name: "source timed out", error: ProxyError(.timedOut("slow")), webimage: 504, imgproxy: 504),
        StatusRow(name: "request timed out", error: ProxyResponder.timedOut(after: .seconds(10)), webimage: 504, imgproxy: 503),
        StatusRow(name: "request cancelled", error: ProxyError(.cancelled), webimage: 503, imgproxy: 499),
        StatusRow(name: "source too large", error: ProxyError(.bodyTooLarge(limit: 1)), webimage: 422, imgproxy: 422),
        StatusRow(name: "source resolution too large", error: ProxyError(.imageTooLarge(pixels: 10, limit: 1)), webimage: 422, imgproxy: 422),
        StatusRow(name: "not an image", error: ProxyError(.badImageData("garbage")), webimage: 422, imgproxy: 422),
        StatusRow(name: "workers busy", error: ProxyError(.overloaded("queue full")), webimage: 429, imgproxy: 429),
    ]

    @Test("each error answers WebImage's status, and imgproxy's under its profile", arguments: statusRows)
    func statusTable(_ row: StatusRow) {
        #expect(Int(row.error.answered(under: .webimage).status.code) == row.webimage)
        #expect(Int(row.error.answered(under: .imgproxy).status.code) == row.imgproxy)
        #expect(row.error.answered(under: .imgproxy).message == row.error.message)
    }

    @Test("a live server under imgproxy's status codes: malformed URLs, refused addresses and source 4xx")
    func liveImgproxyStatuses() async throws {
        try await TestProxy.with(configure: { $0.profile = .imgproxy }) { (origin, proxy) async throws in
            origin.register("/denied.jpg", .status(403))
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/denied.jpg"))).status == 403)
            #expect(try await proxy.get(proxyPath("nonsense:1", source: origin.url("/photo.jpg"))).status == 404)
            #expect(try await proxy.get("/insecure").status == 404)
            #expect(try await proxy.get(proxyPath("", source: origin.url("/photo.jpg"))).status == 200)
        }
        try await TestProxy.with(configure: { $0.profile = .imgproxy; $0.sources.allowLoopback = false }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let refused = try await proxy.get(proxyPath("", source: origin.url("/photo.jpg")))
            #expect(refused.status == 404)
            #expect(refused.text.contains("loopback"))
        }
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/denied.jpg", .status(403))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/denied.jpg"))).status == 502)
            #expect(try await proxy.get("/insecure").status == 400)
        }
    }

    @Test("a path with no '/' after its first segment is malformed, not a bad signature")
    func noSeparatorAfterSignature() {
        let signed = ProxyURLParser(keys: [try! SigningKey(hexKey: "736563726574", hexSalt: "68656c6c6f")])
        #expect(parseError("/abcdef", parser: signed)?.status.code == 400)
        #expect(parseError("/abcdef", parser: signed)?.answered(under: .imgproxy).status.code == 404)
    }

    // MARK: - Security settings

    @Test("IMGPROXY_SECRET: image requests need Authorization: Bearer <secret>; /health does not")
    func secret() async throws {
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_SECRET": "s3cr3t"], to: &config)
        #expect(config.listen.secret == "s3cr3t")
        try await TestProxy.with(configure: { $0.listen.secret = "s3cr3t" }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("rs:fit:50:50", source: origin.url("/photo.jpg"))
            let missing = try await proxy.get(path)
            #expect(missing.status == 403)
            #expect(missing.text.contains("Authorization: Bearer"))
            #expect(try await proxy.get(path, headers: [("Authorization", "Bearer wrong!")]).status == 403)
            #expect(try await proxy.get(path, headers: [("Authorization", "Bearer s3cr3t-and-more")]).status == 403)
            #expect(try await proxy.get(path, headers: [("Authorization", "Bearer s3cr3")]).status == 403)
            #expect(try await proxy.get(path, headers: [("Authorization", "Bearer s3cr3t")]).status == 200)
            #expect(try await proxy.get("/health").status == 200)
            // Nothing was fetched for the refused requests.
            #expect(origin.requestCount("/photo.jpg") == 1)
        }
        var blank = ServerConfig()
        blank.listen.secret = "two words"
        #expect(throws: ServerConfigError.self) { try blank.validate() }
    }

    @Test("an allowed processing option that is no option stops start-up")
    func allowedOptionNamesChecked() {
        var config = ServerConfig()
        config.signing.allowedProcessingOptions = ["w", "wdth"]
        #expect { try config.validate() } throws: { ($0 as? ServerConfigError)?.message.contains("'wdth'") == true }
    }

    @Test("server-wide processing defaults reach every URL and its cache key; URLs still override them")
    func processingDefaults() throws {
        var config = ServerConfig()
        try ImgproxyEnvironment.apply([
            "IMGPROXY_KEEP_COPYRIGHT": "true", "IMGPROXY_STRIP_COLOR_PROFILE": "false", "IMGPROXY_AUTO_ROTATE": "false",
            "IMGPROXY_ENFORCE_THUMBNAIL": "1", "IMGPROXY_SKIP_PROCESSING_FORMATS": "gif, svg", "IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "2.5",
            "IMGPROXY_HEALTH_CHECK_PATH": "/healthz",
        ], to: &config)
        try config.validate()
        #expect(config.limits.maxAnimationFrameResolution == 2_500_000 && config.listen.healthCheckPath == "/healthz")
        let defaults = config.processingDefaults
        #expect(defaults.keepCopyright == true && defaults.stripColorProfile == false && !defaults.autoRotate)
        #expect(defaults.enforceThumbnail == true && defaults.skipProcessing == [.gif, .svg])
        let parser = ProxyURLParser(keys: [], defaultOptions: defaults)
        let request = try parser.parse(path: "/insecure/kcr:0/plain/http://example.com/a.jpg")
        #expect(request.options.keepCopyright == false && request.options.stripColorProfile == false)
        // WebImage's defaults leave every option unset, so cache keys do not change with them.
        #expect(ServerConfig().processingDefaults == ProcessingOptions())
    }

    @Test("IMGPROXY_HEALTH_CHECK_PATH answers like /health")
    func healthCheckPath() async throws {
        try await TestProxy.with(configure: { $0.listen.healthCheckPath = "/healthz" }) { (_, proxy) async throws in
            let reply = try await proxy.get("/healthz")
            #expect(reply.status == 200 && reply.text == "ok\n")
        }
    }

    // MARK: - Every variable accounted for

    @Test("a variable WebImage cannot run without stops start-up, naming it; a false boolean does not")
    func refusedVariables() throws {
        for (name, value) in [("IMGPROXY_USE_ABS", "true"), ("IMGPROXY_USE_SWIFT", "true"), ("IMGPROXY_IGNORE_SSL_VERIFICATION", "1")] {
            var config = ServerConfig()
            #expect { try ImgproxyEnvironment.apply([name: value], to: &config) } throws: { error in
                (error as? ServerConfigError)?.message.hasPrefix("\(name) is set, but") == true
            }
        }
        var config = ServerConfig()
        let ignored = try ImgproxyEnvironment.apply(["IMGPROXY_USE_ABS": "false", "IMGPROXY_PRESERVE_HDR": "true", "IMGPROXY_NO_SUCH_THING": "1"], to: &config)
        #expect(ignored == ["IMGPROXY_NO_SUCH_THING", "IMGPROXY_PRESERVE_HDR", "IMGPROXY_USE_ABS"])
        let warning = try #require(ImgproxyEnvironment.warning(ignored: ignored))
        #expect(warning.contains("IMGPROXY_PRESERVE_HDR (high dynamic range is not kept"))
        #expect(warning.contains("IMGPROXY_NO_SUCH_THING (imgproxy has no such variable)"))
    }

    /// Every name of the fixture (imgproxy's own list) is applied or explained, and
    /// docs/imgproxy.md says the same as the code, row by row.
    @Test("docs/imgproxy.md covers every IMGPROXY_* variable of imgproxy's code, as the code handles it")
    func variableTable() throws {
        let fixture = try String(contentsOf: Self.root.appending(path: "Tests/WebImageServerTests/Fixtures/imgproxy-variables.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(fixture.count == 187)
        let applied = ImgproxyEnvironment.appliedNames
        let unapplied = ImgproxyEnvironment.unapplied
        #expect(applied.isDisjoint(with: unapplied.keys))
        for name in fixture {
            #expect(applied.contains(name) || unapplied[name] != nil, "\(name) is neither applied nor explained")
        }
        for name in unapplied.keys { #expect(fixture.contains(name), "\(name) is explained but is not imgproxy's") }

        let document = try String(contentsOf: Self.root.appending(path: "docs/imgproxy.md"), encoding: .utf8)
        var rows: [String: (applied: String, detail: String)] = [:]
        for line in document.split(separator: "\n") where line.hasPrefix("| `IMGPROXY_") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = (cells[2], cells[3])
        }
        #expect(Set(rows.keys) == Set(fixture), "the document's rows differ from imgproxy's list")
        for name in fixture {
            guard let row = rows[name] else { continue }
            if applied.contains(name) {
                #expect(row.applied == "✓", "\(name) is applied; the document says \(row.applied)")
            } else if let gap = unapplied[name] {
                #expect(row.applied == (gap.stopsStartup ? "stops start-up" : "ignored"), "\(name): the document says \(row.applied)")
                #expect(row.detail == gap.reason, "\(name): the document's reason differs from the server's")
            }
        }
        for name in applied.subtracting(fixture) {
            #expect(document.contains("`\(name)`"), "\(name) is applied but the document does not name it")
        }
    }
}

@Suite("JPEG shrink-on-load setting")
struct JPEGShrinkSettingTests {
    @Test("imgproxy's profile shrinks JPEGs to the target; WebImage's leaves the resample a factor of two; the flag chooses")
    func profilesAndFlag() throws {
        #expect(ServerProfile.imgproxy.defaults.encoding.jpegShrinkOnLoad == .toTarget)
        #expect(ServerProfile.webimage.defaults.encoding.jpegShrinkOnLoad == .leavingResample)
        var config = ServerConfig()
        try ServerSetting.jpegShrinkOnLoad.apply(["to-target"], to: &config)
        #expect(config.encoding.jpegShrinkOnLoad == .toTarget)
        #expect(ServerSetting.jpegShrinkOnLoad.flag == "jpeg-shrink-on-load")
        #expect(throws: (any Error).self) { try ServerSetting.jpegShrinkOnLoad.apply(["half"], to: &config) }
    }
}
