import Foundation
import Testing
import WebImage

/// `DownloaderProxy`: proxy URLs, the standard variables, and which URLs go through which proxy.
@Suite("Downloader proxy settings")
struct DownloaderProxyTests {
    @Test("a proxy URL gives host, port and percent-decoded credentials; no scheme means http, no port 1080")
    func proxyURLs() throws {
        let full = try DownloaderProxy.Endpoint(url: "http://al%40ce:p%3Ass@proxy.example:3128")
        #expect(full.host == "proxy.example" && full.port == 3128)
        #expect(full.credentials == DownloaderConfig.Credentials(user: "al@ce", password: "p:ss"))
        #expect(full.description == "proxy.example:3128", "the description never shows the credentials")
        let bare = try DownloaderProxy.Endpoint(url: "proxy.example")
        #expect(bare.host == "proxy.example" && bare.port == 1080 && bare.credentials == nil)
        let v6 = try DownloaderProxy.Endpoint(url: "http://[fd00::5]:8080")
        #expect(v6.host == "fd00::5" && v6.description == "[fd00::5]:8080")
    }

    @Test("an https, SOCKS or hostless proxy URL is refused with a message that hides the password")
    func unusableProxyURLs() {
        for text in ["https://u:secret@proxy.example:443", "socks5://proxy.example:1080", "http://:3128"] {
            do {
                _ = try DownloaderProxy.Endpoint(url: text)
                Issue.record("\(text) must be refused")
            } catch {
                guard case .invalidDownloadOperation(let message) = error else { Issue.record("got \(error)"); continue }
                #expect(!message.contains("secret"), "\(message)")
            }
        }
    }

    @Test("the standard variables: lower case first, an empty one unset, NO_PROXY applied to both schemes")
    func environment() throws {
        let proxy = try #require(try DownloaderProxy.fromEnvironment([
            "http_proxy": "http://lower:3128", "HTTP_PROXY": "http://upper:3128",
            "HTTPS_PROXY": "http://secure:3129", "https_proxy": "",
            "NO_PROXY": "internal.example",
        ]))
        #expect(proxy.httpProxy?.host == "lower")
        #expect(proxy.httpsProxy?.host == "secure" && proxy.httpsProxy?.port == 3129)
        #expect(proxy.endpoint(for: URL(string: "http://images.example/a.png")!)?.host == "lower")
        #expect(proxy.endpoint(for: URL(string: "https://images.example/a.png")!)?.host == "secure")
        #expect(proxy.endpoint(for: URL(string: "https://cdn.internal.example/a.png")!) == nil)
        #expect(try DownloaderProxy.fromEnvironment(["NO_PROXY": "*", "PATH": "/usr/bin"]) == nil)
    }

    @Test("a variable that names an unusable proxy fails naming the variable")
    func unusableVariable() {
        do {
            _ = try DownloaderProxy.fromEnvironment(["HTTPS_PROXY": "https://proxy.example"])
            Issue.record("an https proxy must be refused")
        } catch {
            guard case .invalidDownloadOperation(let message) = error else { Issue.record("got \(error)"); return }
            #expect(message.hasPrefix("HTTPS_PROXY:"), "\(message)")
        }
    }

    @Test("a scheme without a proxy goes direct")
    func schemeWithoutProxy() throws {
        let endpoint = try DownloaderProxy.Endpoint(url: "http://proxy.example:3128")
        let proxy = DownloaderProxy(httpsProxy: endpoint)
        #expect(proxy.endpoint(for: URL(string: "http://images.example/a.png")!) == nil)
        #expect(proxy.endpoint(for: URL(string: "https://images.example/a.png")!) == endpoint)
    }
}
