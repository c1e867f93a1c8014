import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// What an error tells a client: by default its kind's short text and the request's ID,
/// never the addresses a source resolves to, which ports answer, the S3 access key ID or a
/// path outside the URL; with development errors, the full diagnostic.
@Suite("Error disclosure")
struct ErrorDisclosureTests {
    static let keyID = "AKIAHP7DISCLOSURE01"

    /// The failures answered with details, and what the details name.
    static func failures(_ origin: TestOrigin, root: String) throws -> [(path: String, status: Int, kind: ProxyError.Kind, secrets: [String])] {
        let closed = try freeLoopbackPort()
        return [
            // A name resolving to a refused (private) address: refused before any connection.
            (proxyPath("", source: URL(string: "http://private.test/a.jpg")!), 403, .invalidSourceURL, ["10.9.8.7", "private"]),
            // A port that refuses connections.
            (proxyPath("", source: URL(string: "http://127.0.0.1:\(closed)/a.jpg")!), 502, .sourceUnreachable, ["refused", String(closed)]),
            // S3 refusing the server's access key ID.
            (proxyPath("", source: URL(string: "s3://photos/cat.jpg")!), 403, .sourceUnreachable, [Self.keyID]),
            // A path under the local root that exists and is not a file.
            (proxyPath("", source: URL(string: "local:///albums")!), 404, .sourceUnreachable, ["not a regular file", root]),
        ]
    }

    static func configure(_ config: inout ServerConfig, origin: TestOrigin, root: String, development: Bool) {
        config.sources.allowLoopback = true
        config.sources.allowPrivate = false
        config.sources.localFilesystemRoot = root
        config.sources.useS3 = true
        config.sources.s3Endpoint = origin.baseURL.absoluteString
        config.sources.s3Environment = ["AWS_ACCESS_KEY_ID": Self.keyID, "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1"]
        config.responses.developmentErrors = development
    }

    static func registerS3(_ origin: TestOrigin) {
        origin.register("/photos/cat.jpg", .text("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message><AWSAccessKeyId>\(Self.keyID)</AWSAccessKeyId></Error>
            """, status: 403, contentType: "application/xml"))
    }

    @Test("HP7 by default an error body is its kind's short text: no address, port, key ID or path; the request ID is in X-Request-ID")
    func shortTextsByDefault() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-hp7-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/albums", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestOrigin.with { origin in
            Self.registerS3(origin)
            let proxy = try await TestProxy.start(configure: { Self.configure(&$0, origin: origin, root: root, development: false) }, resolve: Self.privateName(origin))
            defer { Task { await proxy.stop() } }
            for failure in try Self.failures(origin, root: root) {
                let reply = try await proxy.get(failure.path)
                #expect(reply.status == failure.status, "\(failure.path)")
                #expect(reply.text == failure.kind.rawValue + "\n")
                for secret in failure.secrets { #expect(!reply.text.contains(secret)) }
                #expect(reply.headers.allSatisfy { !$0.value.contains(Self.keyID) && !$0.value.contains(root) })
                #expect(!(reply.header("x-request-id") ?? "").isEmpty)
            }
        }
    }

    @Test("HP7 with development errors the body carries the full diagnostic")
    func fullDiagnosticInDevelopment() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-hp7-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/albums", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestOrigin.with { origin in
            Self.registerS3(origin)
            let proxy = try await TestProxy.start(configure: { Self.configure(&$0, origin: origin, root: root, development: true) }, resolve: Self.privateName(origin))
            defer { Task { await proxy.stop() } }
            for failure in try Self.failures(origin, root: root) {
                let reply = try await proxy.get(failure.path)
                #expect(reply.status == failure.status)
                #expect(failure.secrets.contains { reply.text.contains($0) }, "\(failure.path): \(reply.text)")
            }
        }
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_DEVELOPMENT_ERRORS_MODE": "true"], to: &config)
        #expect(config.responses.developmentErrors)
    }

    /// A resolver that gives `private.test` a private address, which the guard refuses.
    static func privateName(_ origin: TestOrigin) -> @Sendable (String) async throws(ImageError) -> [IPAddress] {
        { host throws(ImageError) in
            guard host == "private.test" else { throw .network("cannot resolve host '\(host)': no such host") }
            return [IPAddress(parsing: "10.9.8.7")!]
        }
    }
}
