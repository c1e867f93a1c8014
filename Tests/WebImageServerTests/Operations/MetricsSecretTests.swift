import Testing
@testable import WebImageServer

@Suite("/metrics and the secret")
struct MetricsSecretTests {
    @Test("with --secret, /metrics on the proxy's port needs the bearer token; /health does not")
    func metricsBehindTheSecret() async throws {
        let proxy = try await TestProxy.start(configure: {
            $0.listen.secret = "s3cr3t"
            $0.responses.developmentErrors = false
        })
        defer { Task { await proxy.stop() } }
        let refused = try await proxy.get("/metrics")
        #expect(refused.status == 403)
        #expect(refused.text == "Forbidden\n")
        #expect(try await proxy.get("/metrics", headers: [("Authorization", "Bearer wrong")]).status == 403)
        let allowed = try await proxy.get("/metrics", headers: [("Authorization", "Bearer s3cr3t")])
        #expect(allowed.status == 200)
        #expect(allowed.text.contains("webimage_client_connections"))
        #expect(try await proxy.get("/health").status == 200)
    }
}
