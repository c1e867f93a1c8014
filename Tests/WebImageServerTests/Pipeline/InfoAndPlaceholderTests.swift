import Foundation
import Testing
import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// `/info/<signature>/<options>/<source>` and `format:thumbhash` through a live proxy.
@Suite("Proxy /info and ThumbHash")
struct InfoAndPlaceholderTests {
    @Test("/info answers the source's details as JSON, cached, signed like any path; gps only when asked")
    func info() async throws {
        let key = try SigningKey(hexKey: "736563726574", hexSalt: "68656c6c6f")
        try await TestProxy.with(configure: { $0.signing.keys = ["736563726574"]; $0.signing.salts = ["68656c6c6f"] }) { (origin, proxy) async throws in
            let image = try TestImages.quadrants(width: 120, height: 80)
            origin.register("/a.png", .image(try TestImages.encode(image, as: .png)))
            let source = origin.url("/a.png").absoluteString
            let path = "/info" + proxyPath("", source: URL(string: source)!, key: key)
            let reply = try await proxy.get(path)
            #expect(reply.status == 200 && reply.header("content-type") == "application/json")
            #expect(reply.header("content-disposition") == nil && reply.header("vary") == nil)
            let details = try ImageDetails(json: reply.body)
            #expect(details.format == .png && details.width == 120 && details.height == 80 && details.frames == 1)
            #expect(try await proxy.get(path).body == reply.body)
            #expect(origin.requestCount("/a.png") == 1)
            #expect(try await proxy.metric("webimage_cache_hits_total{type=\"memory\"}") == 1)
            // Options segment: gps and the like; a bad one is 400 naming it; a bad signature is 403.
            #expect(try await proxy.get("/info" + proxyPath("gps:1", source: URL(string: source)!, key: key)).status == 200)
            let bad = try await proxy.get("/info" + proxyPath("gps:1:1", source: URL(string: source)!, key: key))
            #expect(bad.status == 400 && bad.text.contains("option 'gps:1:1'"))
            #expect(try await proxy.get("/info/insecure/plain/\(source)").status == 403)
            // The processing path of the same source is another variant: an image.
            let image200 = try await proxy.get(proxyPath("", source: URL(string: source)!, key: key))
            #expect(image200.header("content-type") == "image/png")
        }
    }

    @Test("/info of a source that is no image is 422 and leaves nothing cached")
    func infoOfNoImage() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/text", .image(Data("hello".utf8), contentType: "text/plain"))
            let reply = try await proxy.get("/info/insecure/plain/\(origin.url("/text").absoluteString)")
            #expect(reply.status == 422, "\(reply.status): \(reply.text)")
            _ = try await proxy.get("/info/insecure/plain/\(origin.url("/text").absoluteString)")
            #expect(origin.requestCount("/text") == 2, "not kept: the second request downloads it again")
        }
    }

    @Test("f:thumbhash answers the processed image's ThumbHash as text, cached like a variant")
    func thumbHash() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            let source = origin.url("/a.jpg").absoluteString
            let reply = try await proxy.get("/insecure/rs:fill:100:200/f:thumbhash/plain/\(source)")
            #expect(reply.status == 200 && reply.header("content-type") == "text/plain; charset=utf-8")
            let hash = try ThumbHash(base64: reply.text)
            #expect(abs(hash.approximateAspectRatio - 0.5) < 0.15, "the hash is of the 100 × 200 result")
            let again = try await proxy.get("/insecure/rs:fill:100:200/f:thumbhash/plain/\(source)")
            #expect(again.text == reply.text)
            #expect(try await proxy.metric("webimage_cache_hits_total{type=\"memory\"}") == 1)
            let whole = try ThumbHash(base64: try await proxy.get("/insecure/f:thumbhash/plain/\(source)").text)
            #expect(abs(whole.approximateAspectRatio - 4.0 / 3) < 0.2)
            #expect(try ProxyURLParser(keys: []).parse(path: "/_/f:thumbhash/plain/\(source)").options.variantKey == "f:thumbhash")
        }
    }
}
