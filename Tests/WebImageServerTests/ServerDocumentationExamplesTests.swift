import Foundation
import HummingbirdTesting
import Testing
import WebImageServer

/// The Swift examples of the WebImageServer DocC catalog, as the articles write them
/// (`DocumentationExamplesTests` in the library's tests checks that every line of an
/// article's example is one of these).
enum ServerDocumentationExamples {
    /// "Running the proxy": a server in a process of one's own (compiled, never run).
    static func runningTheProxy() async throws {
        var config = ServerConfig()
        config.listen.port = 8080
        config.sources.allowedSources = ["https://images.example.com/"]
        let server = try ProxyServer(config: config)
        try await server.run()   // until SIGTERM or SIGINT; in-flight requests finish first
    }

    /// "Running the proxy": the server's application tested in process.
    static func testedInProcess(_ server: ProxyServer) async throws {
        try await server.application().test(.router) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
        }
    }

    /// "Signing URLs".
    static func signedURL() throws -> String {
        let key = try SigningKey(hexKey: "736563726574", hexSalt: "68656C6C6F")
        let path = "/rs:fit:300:300/plain/http://127.0.0.1:8000/photo.jpg"
        let url = "http://127.0.0.1:8080/" + ProxyURLParser.signature(for: path, key: key) + path
        return url
    }
}

@Suite("WebImageServer documentation examples")
struct ServerDocumentationExamplesTests {
    @Test("the running article's in-process test answers /health")
    func inProcessArticle() async throws {
        var config = ServerConfig()
        config.caching.cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-docs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: config.caching.cacheDirectory) }
        try await ServerDocumentationExamples.testedInProcess(ProxyServer(config: config))
    }

    @Test("the signing article's URL carries the signature it shows")
    func signingArticle() throws {
        #expect(try ServerDocumentationExamples.signedURL()
            == "http://127.0.0.1:8080/Hb3f-PVR92cMr84gAWafxIPBYk4TGqHdEspH_K3KhGU/rs:fit:300:300/plain/http://127.0.0.1:8000/photo.jpg")
    }
}
