import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// Source downloads tried again: never by default (as imgproxy, and because retries
/// multiply the load on a failing source), as often as `--download-retries` says when set.
@Suite("Source retries")
struct SourceRetriesTests {
    @Test("HT2 by default the proxy tries a failing source once")
    func HT2_proxyDoesNotRetryByDefault() async throws {
        #expect(ServerConfig().sources.downloadRetries == 0)
        try await TestProxy.with { (origin, proxy) async throws in
            origin.registerFailing("/busy.jpg", times: 1, with: .status(503, headers: [("Retry-After", "0")]), then: .image(ProxyImages.jpeg, contentType: "image/jpeg"))
            let reply = try await proxy.get(proxyPath("", source: origin.url("/busy.jpg")))
            #expect(reply.status == 502)
            #expect(origin.requestCount("/busy.jpg") == 1)
            let retries = try await proxy.metric("webimage_source_retries_total")
            #expect(retries == 0)
        }
    }

    @Test("HT2 --download-retries retries a 503 after its Retry-After, a 404 not, and counts the retries")
    func HT2_proxyRetriesWhenAsked() async throws {
        var config = ServerConfig()
        #expect(try config.sources.downloaderConfig(maxBodySize: 1).retryPolicy == .never)
        try ServerSetting.apply(environment: ["WEBIMAGE_DOWNLOAD_RETRIES": "3"], to: &config)
        #expect(config.sources.downloadRetries == 3 && ServerSetting.downloadRetries.flag == "download-retries")
        #expect(try config.sources.downloaderConfig(maxBodySize: 1).retryPolicy == RetryPolicy(maxRetries: 3))
        try await TestProxy.with(configure: { $0.sources.downloadRetries = 2 }) { (origin, proxy) async throws in
            origin.registerFailing("/busy.jpg", times: 1, with: .status(503, headers: [("Retry-After", "0")]), then: .image(ProxyImages.jpeg, contentType: "image/jpeg"))
            let busy = try await proxy.get(proxyPath("", source: origin.url("/busy.jpg")))
            #expect(busy.status == 200)
            #expect(origin.requestCount("/busy.jpg") == 2)
            origin.register("/gone.jpg", .status(404))
            let gone = try await proxy.get(proxyPath("", source: origin.url("/gone.jpg")))
            #expect(gone.status == 404)
            #expect(origin.requestCount("/gone.jpg") == 1)
            let retries = try await proxy.metric("webimage_source_retries_total")
            #expect(retries == 1)
        }
    }
}
