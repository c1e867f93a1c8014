import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// The proxy's source network settings: `--proxy`, `--no-proxy`, `--trust-proxy-address`,
/// `--ca-file`, `--client-cert`, `--client-key`, their `WEBIMAGE_*` variables and the
/// standard `HTTP_PROXY` / `HTTPS_PROXY` / `NO_PROXY`.
@Suite("Source network settings")
struct SourceNetworkSettingsTests {
    @Test("the standard variables give the proxies; WEBIMAGE_PROXY and --proxy win, and trust reaches the downloader")
    func proxySettings() throws {
        var config = ServerConfig()
        config.sources.readStandardProxyVariables([
            "HTTP_PROXY": "http://plain.example:3128", "https_proxy": "http://secure.example:3129", "NO_PROXY": "internal.example",
        ])
        var proxy = try #require(try config.sources.sourceProxy())
        #expect(proxy.httpProxy?.host == "plain.example" && proxy.httpsProxy?.host == "secure.example")
        #expect(proxy.noProxy.text == "internal.example" && !proxy.trustsProxyAddress)

        try ServerSetting.apply(environment: ["WEBIMAGE_PROXY": "http://u:p@egress.example:8080", "WEBIMAGE_TRUST_PROXY_ADDRESS": "true"], to: &config)
        proxy = try #require(try config.sources.sourceProxy())
        #expect(proxy.httpProxy == proxy.httpsProxy && proxy.httpProxy?.host == "egress.example")
        #expect(proxy.httpProxy?.credentials == DownloaderConfig.Credentials(user: "u", password: "p"))
        #expect(proxy.trustsProxyAddress)

        try ServerSetting.proxy.apply([""], to: &config)
        #expect(try config.sources.sourceProxy() == nil, "an empty --proxy goes direct")
    }

    @Test("--max-download-starts-per-second gives the downloader a rate limit with a burst of as many; 0 none")
    func downloadStartRate() throws {
        var config = ServerConfig()
        #expect(try config.sources.downloaderConfig(maxBodySize: 1).rateLimit == nil)
        try ServerSetting.apply(environment: ["WEBIMAGE_MAX_DOWNLOAD_STARTS_PER_SECOND": "40"], to: &config)
        #expect(ServerSetting.maxDownloadStartsPerSecond.flag == "max-download-starts-per-second")
        let limit = try #require(try config.sources.downloaderConfig(maxBodySize: 1).rateLimit)
        #expect(limit.startsPerSecond == 40 && limit.burst == 40)
        config.sources.maxDownloadStartsPerSecond = -1
        #expect { try config.validate() } throws: { ($0 as? ServerConfigError)?.message.contains("--max-download-starts-per-second") == true }
    }

    @Test("an unusable proxy or CA file fails validation naming the setting")
    func unusableSettings() {
        var config = ServerConfig()
        config.sources.httpsProxy = "https://egress.example:443"
        #expect { try config.validate() } throws: { ($0 as? ServerConfigError)?.message.contains("--proxy") == true }
        config.sources.httpsProxy = nil
        config.sources.caFile = "/nonexistent/ca.pem"
        #expect { try config.validate() } throws: { ($0 as? ServerConfigError)?.message.contains("--ca-file") == true }
        #expect(ServerSetting.noProxy.flag == "no-proxy" && ServerSetting.noProxy.environmentName == "WEBIMAGE_NO_PROXY")
        #expect(ServerSetting.clientCert.flag == "client-cert" && ServerSetting.caFile.environmentName == "WEBIMAGE_CA_FILE")
    }

    @Test("the server fetches its sources through the configured proxy's CONNECT tunnel")
    func sourcesThroughTheProxy() async throws {
        let tinyproxy = try await TinyproxyProcess.start()
        defer { tinyproxy.stop() }
        // Loopback sources are allowed here (the test origin is on 127.0.0.1), which lets the
        // guard approve the proxy on 127.0.0.1 too.
        try await TestProxy.with(configure: { $0.sources.httpProxy = "http://127.0.0.1:\(tinyproxy.port)" }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("rs:fit:20:20", source: origin.url("/photo.jpg")))
            #expect(reply.status == 200)
            #expect(tinyproxy.connectTargets == ["127.0.0.1:\(origin.port)"], "\(tinyproxy.log)")
        }
    }
}
