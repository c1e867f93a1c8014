import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// imgproxy's `IMGPROXY_PROMETHEUS_NAMESPACE` and `IMGPROXY_PROMETHEUS_BIND`: the metrics'
/// names with another prefix, and `/metrics` on a listener of its own.
@Suite("Prometheus namespace and listener")
struct PrometheusSettingsTests {
    @Test("the namespace replaces webimage where a metric's name starts, and nowhere else")
    func renamed() {
        let text = """
        # HELP webimage_processed_total Variants made.
        # TYPE webimage_processed_total counter
        webimage_processed_total 3
        webimage_cache_hits_total{type="memory"} 1
        other_webimage_thing 2

        """
        let renamed = String(decoding: ServerMetrics.renamed(Array(text.utf8), namespace: "imgproxy"), as: UTF8.self)
        #expect(renamed == """
        # HELP imgproxy_processed_total Variants made.
        # TYPE imgproxy_processed_total counter
        imgproxy_processed_total 3
        imgproxy_cache_hits_total{type="memory"} 1
        other_webimage_thing 2

        """)
    }

    @Test("settings: a bind is host:port or :port, a namespace a Prometheus name; imgproxy's variables set them")
    func settings() throws {
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_PROMETHEUS_BIND": ":9464", "IMGPROXY_PROMETHEUS_NAMESPACE": "imgproxy"], to: &config)
        #expect(config.operations.prometheusBind == ":9464")
        #expect(config.operations.prometheusNamespace == "imgproxy")
        #expect(ListenAddress(":9464") == ListenAddress("0.0.0.0:9464"))
        #expect(ListenAddress("[::1]:80")?.host == "::1")
        for bad in ["9464", "host:", "host:0", "host:70000", "a b:80"] {
            #expect(throws: ServerConfigError.self, "\(bad)") { try ServerSetting.prometheusBind.apply([bad], to: &config) }
        }
        for bad in ["9lives", "a-b", "_x", "ä"] {
            #expect(throws: ServerConfigError.self, "\(bad)") { try ServerSetting.prometheusNamespace.apply([bad], to: &config) }
        }
        // A configuration made in code is checked when the server is made.
        var programmatic = ServerConfig()
        programmatic.operations.prometheusBind = "9464"
        #expect(throws: ServerConfigError.self) { try programmatic.validate() }
        programmatic.operations.prometheusBind = ":9464"
        programmatic.operations.prometheusNamespace = "9lives"
        #expect(throws: ServerConfigError.self) { try programmatic.validate() }
        programmatic.operations.prometheusNamespace = "imgproxy"
        try programmatic.validate()
    }

    @Test("with a bind, /metrics is served there under the namespace, and is a proxy path on the proxy's port")
    func ownListener() async throws {
        let metricsPort = try freeLoopbackPort()
        try await TestProxy.with(transport: .socket, configure: { $0.operations.prometheusBind = "127.0.0.1:\(metricsPort)"; $0.operations.prometheusNamespace = "imgproxy" }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/photo.jpg"), extension: "png")).status == 200)
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(metricsPort)/metrics")
            request.method = .GET
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            #expect(response.status == .ok)
            let page = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(page.contains("imgproxy_processed_total 1"))
            #expect(!page.contains("webimage_"))
            #expect(try await proxy.get("/metrics").status != 200, "a proxy path, not the metrics")
        }
    }
}
