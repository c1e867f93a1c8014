import Foundation
import NIOCore
import NIOPosix
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

// Tests of the in-process test origin (Support/TestOrigin*.swift), driven by a raw TCP client so
// that every byte the origin sends (or does not send) is visible.

@Suite("TestOrigin")
struct TestOriginTests {
    @Test func urlsPointAtLoopbackEphemeralPort() async throws {
        let origin = try await TestOrigin.start()
        #expect(origin.port > 0)
        #expect(origin.baseURL.absoluteString == "http://127.0.0.1:\(origin.port)")
        #expect(origin.url("/a.png?v=2").absoluteString == "http://127.0.0.1:\(origin.port)/a.png?v=2")
        #expect(origin.url("b.png").absoluteString == "http://127.0.0.1:\(origin.port)/b.png")
        try await origin.shutdown()
    }

    @Test func servesImageAndRecordsRequest() async throws {
        let origin = try await TestOrigin.start()
        let png = originSampleBytes(3000)
        origin.register("/a.png", .image(png, contentType: "image/png"))

        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/a.png?size=large&x=1", headers: ["X-Custom: abc", "Accept: image/*", "X-Dup: 1", "X-Dup: 2"])
        let response = try #require(await client.readResponse())
        #expect(response.status == 200)
        #expect(response.header("content-type") == "image/png")
        #expect(response.header("Content-Length") == "3000")
        #expect(response.body == png)

        #expect(origin.requestCount("/a.png") == 1)
        #expect(origin.totalRequestCount == 1)
        let request = try #require(origin.lastRequest("/a.png"))
        #expect(request.method == "GET")
        #expect(request.uri == "/a.png?size=large&x=1")
        #expect(request.path == "/a.png")
        #expect(request.query == "size=large&x=1")
        #expect(request.queryValue("size") == "large")
        #expect(request.header("x-custom") == "abc")
        #expect(request.header("ACCEPT") == "image/*")
        #expect(request.headerValues("x-dup") == ["1", "2"])
        #expect(request.header("X-Missing") == nil)
        #expect(request.httpVersion == "HTTP/1.1")
        #expect(request.body.isEmpty)
        #expect(request.ordinal == 1)
        #expect(await origin.waitForIdle())
        #expect(origin.completedCount("/a.png") == 1)
        await client.close()
        try await origin.shutdown()
    }

    @Test func recordsRequestBodies() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/upload", .status(201))
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/upload", method: "POST", body: "hello body")
        #expect(await client.readResponse()?.status == 201)
        // A chunked request body too.
        try await client.send("PUT /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        #expect(await client.readResponse()?.status == 201)
        let requests = origin.requests("/upload")
        #expect(requests.map(\.method) == ["POST", "PUT"])
        #expect(requests.map { String(decoding: $0.body, as: UTF8.self) } == ["hello body", "abcde"])
        #expect(requests.map(\.ordinal) == [1, 2])
        await client.close()
        try await origin.shutdown()
    }

    @Test func unregisteredPathIs404AndRoutesCanBeReplaced() async throws {
        let origin = try await TestOrigin.start()
        let missing = try #require(try await originFetch(origin, "/nothing?x=1"))
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(missing.text.contains("/nothing"))
        #expect(origin.requestCount("/nothing") == 1)

        origin.register("/r", .text("first"))
        #expect(try await originFetch(origin, "/r")?.text == "first")
        origin.register("/r", .text("second"))
        #expect(try await originFetch(origin, "/r")?.text == "second")
        origin.unregister("/r")
        #expect(try await originFetch(origin, "/r")?.status == 404)
        try await origin.shutdown()
    }

    @Test func handlerRoutesSeeTheRequestAndMatchWithoutQuery() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/etag") { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return .notModified(headers: [("ETag", "\"v1\"")])
            }
            return .image(Data([1, 2, 3]), headers: [("ETag", "\"v1\"")])
                .withHeader("X-Ordinal", String(request.ordinal))
                .withHeader("X-Query", request.query ?? "-")
        }
        let client = try await TestOriginRawClient.connect(to: origin)
        try await client.request("/etag?token=abc")
        let first = try #require(await client.readResponse())
        #expect(first.status == 200)
        #expect(first.header("ETag") == "\"v1\"")
        #expect(first.header("X-Ordinal") == "1")
        #expect(first.header("X-Query") == "token=abc")
        try await client.request("/etag?token=def", headers: ["If-None-Match: \"v1\""])
        let second = try #require(await client.readResponse())
        #expect(second.status == 304)
        #expect(second.body.isEmpty)
        #expect(second.header("Content-Length") == nil)
        #expect(origin.requestCount("/etag") == 2)
        #expect(origin.requests("/etag").map(\.query) == ["token=abc", "token=def"])
        await client.close()
        try await origin.shutdown()
    }

    @Test func pathArgumentsIgnoreQueryAndScheme() async throws {
        let origin = try await TestOrigin.start()
        origin.register("n.png?ignored=1", .image(Data([7])))
        #expect(try await originFetch(origin, "/n.png?x=1")?.status == 200)
        #expect(origin.requestCount("/n.png") == 1)
        #expect(origin.requestCount("n.png?y=2") == 1)
        #expect(origin.requestCount(origin.url("/n.png?z").absoluteString) == 1)
        #expect(origin.lastRequest("/n.png")?.uri == "/n.png?x=1")
        #expect(TestOriginRequest.split("http://h:1/p/q?a=b").path == "/p/q")
        #expect(TestOriginRequest.split("http://h:1?a=b") == ("/", "a=b"))
        #expect(TestOriginRequest.split("/").path == "/")
        try await origin.shutdown()
    }

    @Test func anyStatusContentTypeAndRepeatedHeaders() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/json", TestOriginResponse(status: 201, body: Data("{}".utf8), contentType: "application/json"))
        origin.register("/html", .html("<html>hi</html>"))
        origin.register("/gone", .status(410))
        origin.register("/teapot", .text("short and stout", status: 418))
        origin.register("/odd", .status(599))
        origin.register("/empty", .status(204))
        origin.register(
            "/cookies",
            .image(Data([9]), contentType: "image/webp")
                .withHeader("Set-Cookie", "a=1; Path=/")
                .withHeader("Set-Cookie", "b=2; Path=/")
                .withHeaders([("Cache-Control", "max-age=60"), ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")])
                .withHeader("ETag", "W/\"x\"")
        )

        let client = try await TestOriginRawClient.connect(to: origin)
        let expectations: [(String, Int, String?)] = [
            ("/json", 201, "application/json"), ("/html", 200, "text/html; charset=utf-8"), ("/gone", 410, nil),
            ("/teapot", 418, "text/plain; charset=utf-8"), ("/odd", 599, nil), ("/empty", 204, nil),
        ]
        for (path, status, contentType) in expectations {
            try await client.request(path)
            let response = try #require(await client.readResponse())
            #expect(response.status == status, "\(path)")
            #expect(response.header("Content-Type") == contentType, "\(path)")
        }
        try await client.request("/cookies")
        let cookies = try #require(await client.readResponse())
        #expect(cookies.headerValues("set-cookie") == ["a=1; Path=/", "b=2; Path=/"])
        #expect(cookies.header("Cache-Control") == "max-age=60")
        #expect(cookies.header("Last-Modified") == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(cookies.header("ETag") == "W/\"x\"")
        #expect(cookies.header("Content-Type") == "image/webp")
        #expect(cookies.body == Data([9]))
        // HEAD: the head only, and the connection stays usable.
        try await client.request("/cookies", method: "HEAD")
        let head = try #require(await client.readResponse(method: "HEAD"))
        #expect(head.header("Content-Length") == "1")
        try await client.request("/json")
        #expect(await client.readResponse()?.text == "{}")
        #expect(Set(origin.allRequests.map(\.connectionID)).count == 1)
        await client.close()
        try await origin.shutdown()
    }

    @Test func redirects() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/target.png", .image(Data([1])))
        for status in [301, 302, 303, 307, 308] {
            origin.register("/rel\(status)", .redirect(to: "/target.png", status: status))
            origin.register("/abs\(status)", .redirect(to: origin.url("/target.png").absoluteString, status: status))
        }
        origin.register("/loop", .redirect(to: "/loop"))
        let client = try await TestOriginRawClient.connect(to: origin)
        for status in [301, 302, 303, 307, 308] {
            try await client.request("/rel\(status)")
            let relative = try #require(await client.readResponse())
            #expect(relative.status == status)
            #expect(relative.header("Location") == "/target.png")
            try await client.request("/abs\(status)")
            let absolute = try #require(await client.readResponse())
            #expect(absolute.status == status)
            #expect(absolute.header("Location") == "http://127.0.0.1:\(origin.port)/target.png")
        }
        try await client.request("/loop")
        #expect(await client.readResponse()?.header("Location") == "/loop")
        await client.close()
        try await origin.shutdown()
    }
}
