import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImageServer

@Suite("Playground page")
struct PlaygroundTests {
    /// A local file-system root holding `sample.jpg`, `b-photo.png` and files that are not offered.
    private static func samplesDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-playground-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try ProxyImages.jpeg.write(to: directory.appendingPathComponent("sample.jpg"))
        try ProxyImages.png.write(to: directory.appendingPathComponent("b-photo.png"))
        try Data("text".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        try ProxyImages.jpeg.write(to: directory.appendingPathComponent("with space.jpg"))
        return directory.path
    }

    @Test("with --playground, / answers the page with its own CSP and the security headers")
    func pageWhenOn() async throws {
        let samples = try Self.samplesDirectory()
        defer { try? FileManager.default.removeItem(atPath: samples) }
        try await TestProxy.with(configure: { $0.listen.playground = true; $0.sources.localFilesystemRoot = samples }) { (_, proxy) async throws in
            let reply = try await proxy.get("/")
            #expect(reply.status == 200)
            #expect(reply.header("content-type") == "text/html; charset=utf-8")
            #expect(reply.header("content-length") == String(reply.body.count))
            #expect(reply.header("x-content-type-options") == "nosniff")
            #expect(reply.header("cache-control") == "no-cache")
            let policy = try #require(reply.header("content-security-policy"))
            #expect(policy == PlaygroundPage.contentSecurityPolicy)
            #expect(policy.contains("script-src 'self'") && policy.contains("connect-src 'self'") && policy.contains("img-src 'self' blob:"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval") && !policy.contains("*"))

            let page = reply.text
            for element in [#"id="built-url""#, #"<img id="result""#, #"<pre id="info""#, #"id="width""#, #"id="quality-auto""#] {
                #expect(page.contains(element), "the page lacks \(element)")
            }
            #expect(page.contains(#"<script src="/playground.js" defer></script>"#))
            #expect(page.contains(#"data-signing-required="false""#))
            #expect(page.contains(#"<p id="signing-notice" class="notice" hidden>"#))
            #expect(page.contains(#"<p id="presets-notice" class="notice" hidden>"#))
            // The samples are the images of the local root with plain-source names, sorted.
            #expect(page.contains(#"<option value="local:///b-photo.png">"#))
            #expect(page.contains(#"<option value="local:///sample.jpg">"#))
            #expect(!page.contains("notes.txt") && !page.contains("with space"))
            // Every script has a source (the CSP allows no inline script) and every reference stays on this server.
            #expect(page.components(separatedBy: "<script").count == page.components(separatedBy: "<script src=\"/").count)
            for attribute in ["src=\"", "href=\""] {
                for piece in page.components(separatedBy: attribute).dropFirst() {
                    #expect(piece.hasPrefix("/"), "\(attribute)\(piece.prefix(30)) leaves the server")
                }
            }
        }
    }

    @Test("under a path prefix, the page, its script and style and the paths it builds carry the prefix")
    func underPathPrefix() async throws {
        try await TestProxy.with(configure: { $0.listen.playground = true; $0.listen.pathPrefix = "/images" }) { (_, proxy) async throws in
            let page = try await proxy.get("/images")
            #expect(page.status == 200)
            #expect(page.text.contains(#"<script src="/images/playground.js" defer></script>"#))
            #expect(page.text.contains(#"href="/images/playground.css""#))
            #expect(page.text.contains(#"data-path-prefix="/images""#))
            #expect(try await proxy.get("/images" + PlaygroundPage.scriptPath).status == 200)
            #expect(try await proxy.get("/images" + PlaygroundPage.stylePath).status == 200)
            #expect(try await proxy.get("/").status == 404)
            let script = try await proxy.get("/images" + PlaygroundPage.scriptPath).text
            #expect(script.contains(#"pathPrefix + "/insecure""#) && script.contains(#"pathPrefix + "/info/insecure""#))
        }
    }

    @Test("the page's script and style answer JavaScript and CSS")
    func assetsWhenOn() async throws {
        try await TestProxy.with(configure: { $0.listen.playground = true }) { (_, proxy) async throws in
            let script = try await proxy.get(PlaygroundPage.scriptPath)
            #expect(script.status == 200)
            #expect(script.header("content-type") == "text/javascript; charset=utf-8")
            #expect(script.header("x-content-type-options") == "nosniff")
            #expect(script.text.contains(#""/insecure" + path"#))
            #expect(script.text.contains(#""/info/insecure" + path"#))
            #expect(script.text.contains(#"segments.push("q:auto")"#))
            let style = try await proxy.get(PlaygroundPage.stylePath)
            #expect(style.status == 200)
            #expect(style.header("content-type") == "text/css; charset=utf-8")
            #expect(style.text.contains("#result"))
            // Without a local root the page offers no sample and starts with the URL field.
            let page = try await proxy.get("/").text
            #expect(!page.contains("local:///"))
            #expect(page.contains(#"id="source-custom" value="url" checked"#))
        }
    }

    @Test("HEAD / answers the page's headers without a body")
    func headRequest() async throws {
        try await TestProxy.with(configure: { $0.listen.playground = true }) { (_, proxy) async throws in
            let response = try await proxy.request(.head, "/", timeout: .seconds(10))
            #expect(response.status == 200)
            #expect(response.header("content-type") == "text/html; charset=utf-8")
            #expect(response.header("content-security-policy") == PlaygroundPage.contentSecurityPolicy)
            #expect(response.body.isEmpty)
        }
    }

    @Test("a server that checks signatures or takes only presets renders the page saying so")
    func signingRequired() async throws {
        let key = String(repeating: "ab", count: 16)
        try await TestProxy.with(configure: {
            $0.listen.playground = true
            $0.signing.keys = [key]
            $0.signing.salts = [key]
            $0.signing.onlyPresets = true
            $0.signing.presets = ["thumb": "rs:fill:100:100"]
        }) { (_, proxy) async throws in
            let page = try await proxy.get("/").text
            #expect(page.contains(#"data-signing-required="true""#))
            #expect(page.contains(#"<p id="signing-notice" class="notice">"#))
            #expect(page.contains("cannot sign"))
            #expect(page.contains(#"<p id="presets-notice" class="notice">"#))
        }
    }

    @Test("without --playground, / is the landing page, with no script, and the script path is no file")
    func absentWhenOff() async throws {
        try await TestProxy.with { (_, proxy) async throws in
            let root = try await proxy.get("/")
            #expect(root.status == 200)
            #expect(root.header("content-security-policy") == ProxyResponses.contentSecurityPolicy)
            #expect(root.text == ProxyResponses.landingPage)
            #expect(!root.text.contains("<script"))
            let script = try await proxy.get(PlaygroundPage.scriptPath)
            #expect(script.status >= 400)
            #expect(script.header("content-type") == "text/plain; charset=utf-8")
        }
    }

    @Test("--playground and WEBIMAGE_PLAYGROUND set the playground; it is off by default")
    func setting() throws {
        #expect(ServerConfig().listen.playground == false)
        #expect(ServerSetting.playground.flag == "playground")
        #expect(ServerSetting.playground.environmentName == "WEBIMAGE_PLAYGROUND")
        var config = ServerConfig()
        try ServerSetting.apply(environment: ["WEBIMAGE_PLAYGROUND": "true"], to: &config)
        #expect(config.listen.playground)
        try ServerSetting.playground.apply(["0"], to: &config)
        #expect(!config.listen.playground)
        #expect(throws: ServerConfigError.self) { try ServerSetting.playground.apply(["maybe"], to: &config) }
    }

    @Test("sample names are escaped for HTML")
    func escaping() {
        #expect(PlaygroundPage.escaped(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
    }
}
