import AsyncHTTPClient
import Foundation
import NIOCore
import HTTPTypes
import Testing
@testable import WebImageServer
import WebImageTestSupport

@Suite("Proxy routes")
struct ProxyRoutesTests {
    /// `method` on `path` of `proxy`: status, headers and body (a POST sends one byte).
    static func send(_ method: HTTPRequest.Method, _ path: String, to proxy: TestProxy) async throws -> TestProxy.Reply {
        try await proxy.request(method, path, body: method == .post ? ByteBuffer(string: "x") : nil, timeout: .seconds(30))
    }

    @Test("a method other than GET and HEAD answers 405 with Allow, on every path")
    func otherMethods() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            for path in [proxyPath("", source: origin.url("/a.jpg")), "/health", "/metrics", "/", "/no/such/thing"] {
                for method in [HTTPRequest.Method.post, .put, .delete, .options] {
                    let reply = try await Self.send(method, path, to: proxy)
                    #expect(reply.status == 405, "\(method) \(path)")
                    #expect(reply.header("allow") == "GET, HEAD")
                    #expect(reply.text == "only GET and HEAD are served\n")
                    #expect(reply.header("cache-control") == "no-store")
                    #expect(reply.header("content-security-policy") == ProxyResponses.contentSecurityPolicy)
                }
            }
            #expect(origin.requestCount("/a.jpg") == 0)
        }
    }

    @Test("HEAD answers an image's headers, its length included, without the body")
    func head() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("rs:fit:40:40/f:png", source: origin.url("/a.jpg"))
            let get = try await proxy.get(path)
            let head = try await Self.send(.head, path, to: proxy)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("content-length") == String(get.body.count))
            #expect(head.header("etag") == get.header("etag"))
            #expect(try await Self.send(.head, "/health", to: proxy).status == 200)
        }
    }

    @Test("a path under a fixed one (/health/…, /metrics/…) is a proxy path; /favicon.ico is the 404 text")
    func pathsUnderFixedRoutes() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            // No keys: the signature segment is not checked, whatever it says.
            let rest = proxyPath("rs:fit:20:20", source: origin.url("/a.jpg")).dropFirst("/insecure".count)
            for signature in ["health", "metrics", "favicon.ico"] {
                let reply = try await proxy.get("/" + signature + rest)
                #expect(reply.status == 200, "\(signature): \(reply.text)")
                #expect(reply.header("content-type") == "image/jpeg")
            }
            let favicon = try await proxy.get("/favicon.ico")
            #expect(favicon.status == 404)
            #expect(favicon.text == "not found: ask for /<signature>/<options>/<source>\n")
            #expect(try await proxy.get("/health").text == "ok\n")
        }
    }

    @Test("IMGPROXY_PATH_PREFIX: every path is under the prefix, health and metrics too; a path without it is 404")
    func pathPrefix() async throws {
        try await TestProxy.with(configure: { $0.listen.pathPrefix = "/images" }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("rs:fit:40:40", source: origin.url("/photo.jpg"))
            let served = try await proxy.get("/images" + path)
            #expect(served.status == 200, "\(served.text.prefix(200))")
            #expect(try await proxy.get("/images/info" + path).status == 200)
            #expect(try await proxy.get("/images/health").text == "ok\n")
            #expect(try await proxy.get("/images/metrics").status == 200)
            #expect(try await proxy.get(path).status == 404)
            #expect(try await proxy.get("/health").status == 404)
            #expect(try await proxy.get("/imagesx" + path).status == 404)
        }
    }
}
