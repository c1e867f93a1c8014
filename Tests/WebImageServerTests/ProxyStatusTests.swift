import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

@Suite("Proxy status mapping")
struct ProxyStatusTests {
    @Test("S4 a source over max source bytes → 422, and a lying Content-Length is caught too")
    func tooManyBytes() async throws {
        try await TestProxy.with(configure: { $0.limits.maxSourceBytes = 1000 }) { (origin, proxy) async throws in
            origin.register("/big.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("", source: origin.url("/big.jpg")))
            #expect(reply.status == 422)
            #expect(reply.text.contains("too large"))
            origin.register("/chunked.jpg", TestOriginResponse.image(ProxyImages.jpeg).chunked(chunkSize: 500))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/chunked.jpg"))).status == 422)
        }
    }

    @Test("S4 a source over max source resolution → 422 from its header (a PNG bomb)")
    func tooManyPixels() async throws {
        try await TestProxy.with(configure: { $0.limits.maxSourceResolution = 100_000 }) { (origin, proxy) async throws in
            origin.register("/bomb.png", .image(TestImages.pngBomb(width: 30000, height: 30000)))
            origin.register("/big.jpg", .image(ProxyImages.jpeg))  // 400 × 300 = 120,000 pixels
            let bomb = try await proxy.get(proxyPath("rs:fit:100:100", source: origin.url("/bomb.png")))
            #expect(bomb.status == 422)
            #expect(bomb.text.contains("pixels"))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/big.jpg"))).status == 422)
        }
    }

    @Test("S4 every pipeline error maps to its documented status")
    func errorMapping() {
        #expect(ProxyError(.imageTooLarge(pixels: 10, limit: 1)).status == 422)
        #expect(ProxyError(.bodyTooLarge(limit: 1)).status == 422)
        #expect(ProxyError(.badImageData("x")).status == 422)
        #expect(ProxyError(.invalidStatusCode(404)).status == 404)
        #expect(ProxyError(.invalidStatusCode(410)).status == 410)
        #expect(ProxyError(.invalidStatusCode(500)).status == 502)
        #expect(ProxyError(.network("refused")).status == 502)
        #expect(ProxyError(.timedOut("slow")).status == 504)
        #expect(ProxyError(.forbiddenSource("loopback")).status == 403)
    }

    @Test("S4 source 404 → 404; source 500 → 502")
    func sourceStatuses() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/gone.jpg", .status(404))
            origin.register("/broken.jpg", .status(500))
            let missing = try await proxy.get(proxyPath("", source: origin.url("/gone.jpg")))
            #expect(missing.status == 404)
            #expect(missing.text.contains("not found"))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/broken.jpg"))).status == 502)
        }
    }

    @Test("S4 an unreachable source → 502 that says so; a stalled one → 504 that says so")
    func unreachableAndTimedOut() async throws {
        // With the default download timeout: a refused connection must not be taken for a
        // slow one on a loaded machine.
        try await TestProxy.with { (_, proxy) async throws in
            // A port nothing listens on: an origin's, after it is shut down.
            let closed = try await TestOrigin.start()
            let deadURL = closed.url("/a.jpg")
            try await closed.shutdown()
            let unreachable = try await proxy.get(proxyPath("", source: deadURL))
            #expect(unreachable.status == 502)
            #expect(unreachable.text.contains("unreachable"))
        }
        try await TestProxy.with(configure: { $0.sources.downloadTimeout = .seconds(1) }) { (origin, proxy) async throws in
            origin.register("/stall.jpg", .stall)
            let stalled = try await proxy.get(proxyPath("", source: origin.url("/stall.jpg")))
            #expect(stalled.status == 504)
            #expect(stalled.text.contains("timed out"))
            #expect(stalled.header("cache-control") == "no-store")
        }
    }

    @Test("K5 truncated, garbled, empty and HTML sources → 422, never a crash, nothing cached")
    func badImagesAreRefusedAndNotCached() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            let jpeg = ProxyImages.jpeg
            let bad: [(String, TestOriginResponse)] = [
                ("/truncated.jpg", .image(jpeg.prefix(jpeg.count / 2))),
                ("/garbled.jpg", .image(Data(jpeg.prefix(200)) + Data(repeating: 0x5A, count: 4000))),
                ("/empty.jpg", .image(Data())),
                ("/page.jpg", .html("<html><body>not an image</body></html>")),
                ("/text.png", .text("hello")),
            ]
            for (path, response) in bad {
                origin.register(path, response)
                let first = try await proxy.get(proxyPath("rs:fit:50:50", source: origin.url(path)))
                #expect(first.status == 422, "\(path): \(first.text)")
                #expect(first.header("cache-control") == "no-store")
                // Not cached anywhere: the next request asks the origin again.
                let second = try await proxy.get(proxyPath("rs:fit:50:50", source: origin.url(path)))
                #expect(second.status == 422)
                #expect(origin.requestCount(path) == 2, "\(path)")
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(proxy.variantFilesOnDisk() == 0)
            #expect(proxy.originalFilesOnDisk() == 0)
            // The server is still fine.
            origin.register("/good.jpg", .image(jpeg))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/good.jpg"))).status == 200)
        }
    }
}
