import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// The S3 endpoint the settings name, reached on any address, and nothing else.
@Suite("Trusted S3 endpoint")
struct TrustedEndpointTests {
    @Test("the endpoint covers its own scheme, host and port, and buckets as subdomains of a host name; not another port, scheme or host")
    func covers() throws {
        let minio = try #require(TrustedEndpoint(URL(string: "http://minio.internal:9000")!))
        #expect(minio.covers(URL(string: "http://minio.internal:9000/bucket/key.png")!))
        #expect(minio.covers(URL(string: "http://MINIO.internal:9000/")!))
        #expect(minio.covers(URL(string: "http://photos.minio.internal:9000/key.png")!))
        #expect(!minio.covers(URL(string: "http://minio.internal:9001/bucket/key.png")!))
        #expect(!minio.covers(URL(string: "https://minio.internal:9000/bucket/key.png")!))
        #expect(!minio.covers(URL(string: "http://evilminio.internal:9000/")!))
        #expect(!minio.covers(URL(string: "http://minio.internal.evil.example:9000/")!))

        let loopback = try #require(TrustedEndpoint(URL(string: "http://127.0.0.1")!))
        #expect(loopback.covers(URL(string: "http://127.0.0.1:80/b/k")!))
        #expect(!loopback.covers(URL(string: "http://127.0.0.2/b/k")!))
        #expect(TrustedEndpoint(URL(string: "ftp://127.0.0.1")!) == nil)
    }

    @Test("S3 the guard lets the trusted endpoint's hops reach a loopback or private address; other hosts on them stay refused")
    func guardTrustsEndpoint() async throws {
        let guard_ = SourceGuard(sources: ServerConfig.Sources()) { host throws(ImageError) in
            switch host {
            case "minio.internal", "photos.minio.internal": [IPAddress(parsing: "10.1.2.3")!]
            default: throw .network("no such host")
            }
        }
        let endpoint = [try #require(TrustedEndpoint(URL(string: "http://minio.internal:9000")!))]
        #expect(try await guard_.address(for: URL(string: "http://minio.internal:9000/b/k.png")!, trusting: endpoint) == "10.1.2.3")
        #expect(try await guard_.address(for: URL(string: "http://photos.minio.internal:9000/k.png")!, trusting: endpoint) == "10.1.2.3")
        await #expect(throws: ImageError.self) { _ = try await guard_.address(for: URL(string: "http://minio.internal:9000/b/k.png")!) }
        await #expect(throws: ImageError.self) {
            _ = try await guard_.address(for: URL(string: "http://minio.internal:8080/b/k.png")!, trusting: endpoint)
        }
        let local = [try #require(TrustedEndpoint(URL(string: "http://127.0.0.1:9000")!))]
        #expect(try await guard_.address(for: URL(string: "http://127.0.0.1:9000/b/k.png")!, trusting: local) == "127.0.0.1")
        await #expect(throws: ImageError.self) { _ = try await guard_.address(for: URL(string: "http://127.0.0.2:9000/b/k.png")!, trusting: local) }
    }
}
