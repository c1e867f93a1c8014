import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

@Suite("Proxy source guard")
struct SourceGuardTests {
    @Test("S3 numeric host forms parse as the addresses a connection would reach", arguments: [
        ("127.0.0.1", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"), ("0x7f.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"), ("0", "0.0.0.0"), ("[::1]", "::1"), ("::ffff:127.0.0.1", "::ffff:127.0.0.1"),
    ])
    func numericForms(text: String, canonical: String) throws {
        #expect(try #require(IPAddress(parsing: text)).description == canonical)
    }

    @Test("S3 loopback, private, link-local, CGNAT, unspecified, multicast and embedded IPv4 are classified", arguments: [
        ("127.0.0.1", IPCategory.loopback), ("2130706433", .loopback), ("0177.0.0.1", .loopback), ("::1", .loopback),
        ("10.1.2.3", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
        ("192.168.1.1", .privateNetwork), ("fc00::1", .privateNetwork), ("fd12:3456::1", .privateNetwork),
        ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal), ("100.64.0.1", .sharedCGNAT), ("100.127.255.254", .sharedCGNAT),
        ("0.0.0.0", .unspecified), ("::", .unspecified), ("224.0.0.1", .multicast), ("ff02::1", .multicast),
        ("::ffff:127.0.0.1", .loopback), ("::ffff:10.0.0.1", .privateNetwork), ("::ffff:169.254.169.254", .linkLocal),
        ("::127.0.0.1", .loopback), ("64:ff9b::10.0.0.1", .privateNetwork),
        ("8.8.8.8", .global), ("172.32.0.1", .global), ("100.128.0.1", .global), ("2001:4860:4860::8888", .global),
    ])
    func categories(text: String, category: IPCategory) throws {
        #expect(try #require(IPAddress(parsing: text)).category == category)
    }

    @Test("S3 a host with any forbidden address is refused; the checked address is the one connected to")
    func anyForbiddenAddressRefuses() async throws {
        let guard_ = SourceGuard(sources: .allowing(loopback: false)) { host throws(ImageError) in
            switch host {
            case "mixed.test": [IPAddress(parsing: "93.184.216.34")!, IPAddress(parsing: "127.0.0.1")!]
            case "public.test": [IPAddress(parsing: "2001:db8::1")!, IPAddress(parsing: "93.184.216.34")!]
            default: throw .network("no such host")
            }
        }
        await #expect(throws: ImageError.self) { _ = try await guard_.address(for: URL(string: "http://mixed.test/a.jpg")!) }
        #expect(try await guard_.address(for: URL(string: "https://public.test/a.jpg")!) == "93.184.216.34")
        for forbidden in ["http://2130706433/", "http://0177.0.0.1/", "http://0x7f000001/", "http://[::ffff:127.0.0.1]/",
                          "http://169.254.169.254/latest/meta-data/", "http://100.64.1.1/", "http://0.0.0.0/", "http://[fe80::1]/",
                          "http://10.0.0.1/", "http://192.168.0.1/"] {
            await #expect(throws: ImageError.self, "\(forbidden)") { _ = try await guard_.address(for: URL(string: forbidden)!) }
        }
    }

    @Test("S3 allowed-source prefixes: a host-only prefix must end with '/'")
    func prefixValidation() {
        #expect(SourceGuard.problem(withPrefix: "https://images.example.com") != nil)
        #expect(SourceGuard.problem(withPrefix: "ftp://images.example.com/") != nil)
        #expect(SourceGuard.problem(withPrefix: "https://images.example.com/") == nil)
        #expect(SourceGuard.problem(withPrefix: "https://example.com/images/") == nil)
        var config = ServerConfig()
        config.sources.allowedSources = ["https://images.example.com"]
        #expect(throws: ServerConfigError.self) { try config.validate() }
    }

    @Test("S3 loopback sources are refused by default (403) and the origin is never contacted")
    func loopbackRefusedByDefault() async throws {
        try await TestProxy.with(configure: { $0.sources.allowLoopback = false }) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("", source: origin.url("/a.jpg")))
            #expect(reply.status == 403)
            #expect(reply.text.contains("loopback"))
            #expect(reply.header("cache-control") == "no-store")
            let decimal = URL(string: "http://2130706433:\(origin.port)/a.jpg")!
            #expect(try await proxy.get(proxyPath("", source: decimal)).status == 403)
            let octal = URL(string: "http://0177.0.0.1:\(origin.port)/a.jpg")!
            #expect(try await proxy.get(proxyPath("", source: octal)).status == 403)
            let localhost = URL(string: "http://localhost:\(origin.port)/a.jpg")!
            #expect(try await proxy.get(proxyPath("", source: localhost)).status == 403)
            #expect(origin.totalRequestCount == 0)
        }
    }

    @Test("S3 a source outside the allowlist or not http(s) → 404")
    func allowlist() async throws {
        try await TestProxy.with(configure: { $0.sources.allowedSources = ["http://127.0.0.1:1/only/"] }) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("", source: origin.url("/a.jpg")))
            #expect(reply.status == 404)
            #expect(reply.text.contains("allowed source"))
            #expect(try await proxy.get(proxyPath("", source: URL(string: "file:///etc/passwd")!)).status == 404)
            #expect(origin.totalRequestCount == 0)
        }
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            #expect(try await proxy.get(proxyPath("", source: URL(string: "ftp://127.0.0.1/a.jpg")!)).status == 404)
        }
    }

    @Test("S3 a redirect to a private, link-local, CGNAT, unspecified or IPv4-mapped address is refused before connecting")
    func redirectsToForbiddenAddresses() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            let targets = ["http://10.0.0.1/a.jpg", "http://169.254.169.254/latest/meta-data/", "http://100.64.0.1/a.jpg",
                           "http://0.0.0.0:\(origin.port)/a.jpg", "http://[::ffff:10.0.0.1]/a.jpg", "http://192.168.1.1/a.jpg"]
            for (index, target) in targets.enumerated() {
                origin.register("/r\(index)", .redirect(to: target))
                let reply = try await proxy.get(proxyPath("", source: origin.url("/r\(index)")))
                #expect(reply.status == 403, "\(target)")
                #expect(origin.requestCount("/r\(index)") == 1)
            }
        }
    }

    @Test("S3 a host whose DNS answer includes a loopback address is refused (no rebinding)")
    func mixedDNSAnswerRefused() async throws {
        let resolve: @Sendable (String) async throws(ImageError) -> [IPAddress] = { host throws(ImageError) in
            if host == "rebind.test" { return [IPAddress(parsing: "93.184.216.34")!, IPAddress(parsing: "127.0.0.1")!] }
            throw .network("no such host \(host)")
        }
        try await TestProxy.with(configure: { $0.sources.allowLoopback = false }, resolve: resolve) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("", source: URL(string: "http://rebind.test:\(origin.port)/a.jpg")!))
            #expect(reply.status == 403)
            #expect(origin.totalRequestCount == 0)
        }
    }

    @Test("S3 the connection goes to the address the guard checked, not to a second DNS answer")
    func connectsToCheckedAddress() async throws {
        // The name resolves (for the guard) to loopback, which this server allows; the
        // download reaches the origin only because it connects to that checked address.
        let resolve: @Sendable (String) async throws(ImageError) -> [IPAddress] = { host throws(ImageError) in
            if host == "images.invalid" { return [IPAddress(parsing: "127.0.0.1")!] }
            throw .network("no such host \(host)")
        }
        try await TestProxy.with(resolve: resolve) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("", source: URL(string: "http://images.invalid:\(origin.port)/a.jpg")!))
            #expect(reply.status == 200)
            #expect(origin.lastRequest("/a.jpg")?.header("host") == "images.invalid:\(origin.port)")
        }
    }
}

extension ServerConfig.Sources {
    /// The default source settings, with loopback sources allowed or not.
    static func allowing(loopback: Bool) -> Self {
        var sources = Self()
        sources.allowLoopback = loopback
        return sources
    }
}
