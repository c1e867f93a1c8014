import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// The proxy's cached sources and variants follow the library's freshness rule: used
/// while the source's `Cache-Control` says they are fresh, revalidated with one
/// conditional request after, within `--fresh-max-age` and `--stale-while-revalidate`.
@Suite("Source freshness in the proxy")
struct SourceFreshnessTests {
    /// A source with an ETag that answers `304` to it, saying `cacheControl` each time.
    static func register(_ origin: TestOrigin, _ path: String, cacheControl: String) {
        origin.register(path) { request in
            if request.header("if-none-match") == "\"p\"" { return .notModified(headers: [("ETag", "\"p\""), ("Cache-Control", cacheControl)]) }
            return .image(ProxyImages.jpeg, contentType: "image/jpeg", headers: [("ETag", "\"p\""), ("Cache-Control", cacheControl)])
        }
    }

    @Test("HT1 a variant within its source's max-age is served without a request; one whose source says no-cache revalidates it each time, and a 304 serves it without a download")
    func HT1_proxyFollowsSourceFreshness() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            Self.register(origin, "/kept.jpg", cacheControl: "max-age=3600")
            Self.register(origin, "/checked.jpg", cacheControl: "no-cache")
            for path in ["/kept.jpg", "/checked.jpg"] {
                let url = proxyPath("rs:fit:40:40", source: origin.url(path), extension: "png")
                for _ in 0..<3 { #expect(try await proxy.get(url).status == 200) }
            }
            #expect(origin.requestCount("/kept.jpg") == 1)
            #expect(origin.requestCount("/checked.jpg") == 3)
            #expect(origin.requests("/checked.jpg").dropFirst().allSatisfy { $0.header("if-none-match") == "\"p\"" })
            #expect(origin.completedCount("/checked.jpg") == 3)
        }
    }

    @Test("HT1 --fresh-max-age and --stale-while-revalidate set the caches' freshness; zero leaves the source's word")
    func settings() throws {
        var config = ServerConfig()
        #expect(config.caching.cacheConfig(namespace: "x").freshness == .default)
        try ServerSetting.apply(environment: ["WEBIMAGE_FRESH_MAX_AGE": "60", "WEBIMAGE_STALE_WHILE_REVALIDATE": "30"], to: &config)
        #expect(ServerSetting.freshMaxAge.flag == "fresh-max-age" && ServerSetting.staleWhileRevalidate.flag == "stale-while-revalidate")
        #expect(config.caching.cacheConfig(namespace: "x").freshness == CacheFreshness(maxAge: .seconds(60), staleWhileRevalidate: .seconds(30)))
        #expect(throws: ServerConfigError.self) { try ServerSetting.freshMaxAge.apply(["-1"], to: &config) }
    }
}
