import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// `DownloaderConfig.proxy` against a real forward proxy: Debian's tinyproxy, started on
/// 127.0.0.1 for each test. The proxy's log shows every `CONNECT` it was asked for.
@Suite("Downloads through a forward proxy")
struct ForwardProxyTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 8, height: 8), as: .png)

    /// Runs `body` with a running tinyproxy, stopping it afterwards.
    private func withTinyproxy(
        credentials: (user: String, password: String)? = nil, _ body: (TinyproxyProcess) async throws -> Void
    ) async throws {
        let proxy = try await TinyproxyProcess.start(credentials: credentials)
        defer { proxy.stop() }
        try await body(proxy)
    }

    @Test("an http URL goes through the proxy's CONNECT tunnel to the origin")
    func httpThroughProxy() async throws {
        try await withTinyproxy { tinyproxy in
            try await withOriginAndDownloader(configure: { config in
                config.proxy = DownloaderProxy(all: .init(host: "127.0.0.1", port: tinyproxy.port))
            }) { origin, downloader in
                origin.register("/a.png", .image(Self.png))
                let response = try await downloader.load(origin.url("/a.png"))
                #expect(response.data == Self.png)
                #expect(tinyproxy.connectTargets == ["127.0.0.1:\(origin.port)"], "\(tinyproxy.log)")
                #expect(origin.lastRequest("/a.png")?.header("host") == "127.0.0.1:\(origin.port)")
            }
        }
    }

    @Test("HTTP_PROXY and NO_PROXY from the environment: a listed host goes direct, another through the proxy")
    func noProxyBypassesTheProxy() async throws {
        try await withTinyproxy { tinyproxy in
            let bypassing = try #require(try DownloaderProxy.fromEnvironment([
                "HTTP_PROXY": "http://127.0.0.1:\(tinyproxy.port)", "NO_PROXY": "images.example,127.0.0.0/8",
            ]))
            try await withOriginAndDownloader(configure: { $0.proxy = bypassing }) { origin, downloader in
                origin.register("/direct.png", .image(Self.png))
                let response = try await downloader.load(origin.url("/direct.png"))
                #expect(response.data == Self.png)
                #expect(origin.requestCount("/direct.png") == 1)
                #expect(tinyproxy.connectTargets.isEmpty, "a NO_PROXY host never reaches the proxy: \(tinyproxy.log)")
            }
            let proxied = try #require(try DownloaderProxy.fromEnvironment([
                "http_proxy": "http://127.0.0.1:\(tinyproxy.port)", "no_proxy": "images.example,127.0.0.2",
            ]))
            try await withOriginAndDownloader(configure: { $0.proxy = proxied }) { origin, downloader in
                origin.register("/proxied.png", .image(Self.png))
                _ = try await downloader.load(origin.url("/proxied.png"))
                #expect(tinyproxy.connectTargets == ["127.0.0.1:\(origin.port)"], "\(tinyproxy.log)")
            }
        }
    }

    @Test("an https origin signed by a custom CA loads through the tunnel, TLS end to end")
    func httpsThroughConnect() async throws {
        let authority = try TestCertificateAuthority()
        let server = try authority.issue(commonName: "localhost", dnsNames: ["localhost"], usage: .server)
        let origin = try await TestOrigin.start(tls: authority.serverConfiguration(presenting: server))
        origin.register("/secure.png", .image(Self.png))
        try await withTinyproxy { tinyproxy in
            var config = DownloaderConfig()
            config.proxy = DownloaderProxy(all: .init(host: "127.0.0.1", port: tinyproxy.port))
            config.tls = DownloaderTLS(trustRoots: [authority.certificate])
            // The name is pinned to the origin's address, as a source guard would: the proxy
            // is asked for that address, the certificate is checked against the name.
            config.hopAddress = { url in url.host == "localhost" ? "127.0.0.1" : nil }
            let downloader = ImageDownloader(config: config)
            let response = try await downloader.load(URL(string: "https://localhost:\(origin.port)/secure.png")!)
            await downloader.shutdown()
            #expect(response.data == Self.png)
            #expect(tinyproxy.connectTargets == ["127.0.0.1:\(origin.port)"], "\(tinyproxy.log)")
            #expect(origin.lastRequest("/secure.png")?.header("host") == "localhost:\(origin.port)")
        }
        try await origin.shutdown()
    }

    @Test("a proxy that asks for credentials refuses a request without them (407) and passes one with them")
    func proxyCredentials() async throws {
        try await withTinyproxy(credentials: ("alice", "s3cret")) { tinyproxy in
            try await withOriginAndDownloader(configure: { config in
                config.proxy = DownloaderProxy(all: .init(host: "127.0.0.1", port: tinyproxy.port))
            }) { origin, downloader in
                origin.register("/a.png", .image(Self.png))
                do {
                    _ = try await downloader.load(origin.url("/a.png"))
                    Issue.record("the proxy must refuse a request without credentials")
                } catch let error as ImageError {
                    guard case .network(let message) = error else { Issue.record("got \(error)"); return }
                    #expect(message.contains("407") && message.contains("127.0.0.1:\(tinyproxy.port)"), "\(message)")
                }
                #expect(origin.requestCount("/a.png") == 0)
            }
            try await withOriginAndDownloader(configure: { config in
                config.proxy = DownloaderProxy(all: try! .init(url: "http://alice:s3cret@127.0.0.1:\(tinyproxy.port)"))
            }) { origin, downloader in
                origin.register("/a.png", .image(Self.png))
                let response = try await downloader.load(origin.url("/a.png"))
                #expect(response.data == Self.png)
            }
        }
    }

    @Test("S3 through a proxy the guard approves the origin's name before sending and the tunnel goes to the approved address")
    func guardApprovesOriginAndProxy() async throws {
        try await withTinyproxy { tinyproxy in
            let asked = Recorder<String>()
            try await withOriginAndDownloader(configure: { config in
                config.proxy = DownloaderProxy(all: .init(host: "127.0.0.1", port: tinyproxy.port))
                config.hopAddress = { url in
                    asked.append("\(url.host ?? ""):\(url.port ?? 0)")
                    return "127.0.0.1"
                }
            }) { origin, downloader in
                origin.register("/a.png", .image(Self.png))
                // `.invalid` never resolves: only the approved address can reach the origin.
                let response = try await downloader.load(URL(string: "http://origin.invalid:\(origin.port)/a.png")!)
                #expect(response.data == Self.png)
                #expect(asked.values == ["origin.invalid:\(origin.port)", "127.0.0.1:\(tinyproxy.port)"])
                #expect(tinyproxy.connectTargets == ["127.0.0.1:\(origin.port)"], "\(tinyproxy.log)")
                #expect(origin.lastRequest("/a.png")?.header("host") == "origin.invalid:\(origin.port)")
            }
        }
    }

    @Test("S3 a guard that refuses the proxy's address stops the download before any connection; a trusted proxy is not asked")
    func guardRefusesTheProxy() async throws {
        try await withTinyproxy { tinyproxy in
            let proxyPort = tinyproxy.port
            // A guard that refuses the proxy's loopback address and approves the origin.
            func guardRefusingTheProxy(recording asked: Recorder<String>) -> @Sendable (URL) async throws -> String? {
                { url in
                    asked.append("\(url.host ?? ""):\(url.port ?? 0)")
                    if url.port == proxyPort {
                        throw ImageError.forbiddenSource("127.0.0.1 is a loopback address")
                    }
                    return "127.0.0.1"
                }
            }
            try await withOriginAndDownloader(configure: { config in
                config.proxy = DownloaderProxy(all: .init(host: "127.0.0.1", port: tinyproxy.port))
                config.hopAddress = guardRefusingTheProxy(recording: Recorder())
            }) { origin, downloader in
                origin.register("/a.png", .image(Self.png))
                do {
                    _ = try await downloader.load(origin.url("/a.png"))
                    Issue.record("a refused proxy must stop the download")
                } catch let error as ImageError {
                    guard case .forbiddenSource(let message) = error else { Issue.record("got \(error)"); return }
                    #expect(message.contains("proxy 127.0.0.1:\(tinyproxy.port)") && message.contains("trustsProxyAddress"), "\(message)")
                }
                #expect(tinyproxy.connectTargets.isEmpty, "\(tinyproxy.log)")
                #expect(origin.requestCount("/a.png") == 0)
            }
            let asked = Recorder<String>()
            try await withOriginAndDownloader(configure: { config in
                config.proxy = DownloaderProxy(all: .init(host: "127.0.0.1", port: tinyproxy.port), trustsProxyAddress: true)
                config.hopAddress = guardRefusingTheProxy(recording: asked)
            }) { origin, downloader in
                origin.register("/a.png", .image(Self.png))
                let response = try await downloader.load(origin.url("/a.png"))
                #expect(response.data == Self.png)
                #expect(asked.values == ["127.0.0.1:\(origin.port)"], "the origin is still approved; the trusted proxy is not asked")
                #expect(tinyproxy.connectTargets == ["127.0.0.1:\(origin.port)"])
            }
        }
    }

    @Test("S3 a guard that refuses the origin stops the download before the proxy is asked for anything")
    func guardRefusesTheOriginBehindTheProxy() async throws {
        try await withTinyproxy { tinyproxy in
            try await withOriginAndDownloader(configure: { config in
                config.proxy = DownloaderProxy(all: .init(host: "127.0.0.1", port: tinyproxy.port), trustsProxyAddress: true)
                config.hopAddress = { url in
                    throw ImageError.forbiddenSource("\(url.host ?? "") resolves to a private address")
                }
            }) { origin, downloader in
                origin.register("/a.png", .image(Self.png))
                await #expect(throws: ImageError.self) { try await downloader.load(origin.url("/a.png")) }
                #expect(tinyproxy.connectTargets.isEmpty, "\(tinyproxy.log)")
                #expect(origin.requestCount("/a.png") == 0)
            }
        }
    }
}
