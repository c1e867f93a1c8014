import Foundation
import Testing
import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// `format:best` and `quality:auto` in URLs, the server's defaults for them, and their headers.
@Suite("Proxy best format and auto quality")
struct BestFormatAndAutoQualityTests {
    static let photo = TestImages.samplePhoto
    static let source = "http://example.com/a.jpg"

    func options(_ text: String) throws -> ProcessingOptions {
        try ProxyURLParser(keys: []).parse(path: "/_/\(text)/plain/\(Self.source)").options
    }

    @Test("parsing: q:auto with and without a target, f:best, and what later options undo")
    func parsing() throws {
        let auto = try options("q:auto")
        #expect(auto.autoQuality && auto.autoQualityTarget == nil && auto.quality == nil)
        #expect(try options("quality:auto:0.99").autoQualityTarget == 0.99)
        let undone = try options("q:auto:0.99/q:70")
        #expect(!undone.autoQuality && undone.autoQualityTarget == nil && undone.quality == 70)
        #expect(try options("q:70/q:auto").quality == nil)
        let best = try options("f:best")
        #expect(best.bestFormat && best.format == nil)
        #expect(try !options("format:best/f:webp").bestFormat)
        let withExtension = try ProxyURLParser(keys: []).parse(path: "/_/f:best/plain/\(Self.source)@png").options
        #expect(!withExtension.bestFormat && withExtension.format == .png)
        #expect(try options("q:auto").variantKey == "q:auto" && options("q:auto:0.99").variantKey == "q:auto:0.99")
        #expect(try options("f:best").variantKey == "f:best")
    }

    @Test("bad input is 400 naming the segment", arguments: [
        ("q:auto:1.5", "out of range"), ("q:auto:0.2", "out of range"), ("q:auto:high", "not a number"),
        ("q:auto:0.9:1", "expected 1 to 2 arguments"), ("q:best", "not a whole number"), ("f:bestest", "unsupported output format"),
        ("f:best:webp", "expected 1 argument"),
    ])
    func malformed(_ example: (String, String)) {
        let error = parseError("/_/\(example.0)/plain/\(Self.source)")
        #expect(error?.status == 400, "\(example.0)")
        #expect(error?.message.contains("option '\(example.0)'") == true, "\(error?.message ?? "parsed")")
        #expect(error?.message.contains(example.1) == true, "\(error?.message ?? "parsed")")
    }

    @Test("f:best is no larger than any single format, respects Accept, and varies with it")
    func bestFormat() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(Self.photo))
            let path = { (format: String) in "/insecure/rs:fit:320:240/f:\(format)/plain/\(origin.url("/photo.jpg").absoluteString)" }
            var sizes: [String: Int] = [:]
            for format in ["jpg", "png", "webp", "avif"] {
                sizes[format] = try await proxy.get(path(format)).body.count
            }
            let all = try await proxy.get(path("best"), headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(all.status == 200 && all.header("vary") == "Accept")
            #expect(all.body.count <= sizes.values.min()!, "best \(all.body.count) vs \(sizes)")
            let webpOnly = try await proxy.get(path("best"), headers: [("Accept", "image/webp,*/*")])
            #expect(webpOnly.header("content-type") != "image/avif")
            #expect(webpOnly.body.count <= min(sizes["jpg"]!, sizes["png"]!, sizes["webp"]!))
            let plain = try await proxy.get(path("best"), headers: [("Accept", "image/*")])
            #expect(["image/jpeg", "image/png"].contains(plain.header("content-type") ?? ""))
            #expect(plain.body.count <= min(sizes["jpg"]!, sizes["png"]!))
            let nothing = try await proxy.get(path("best"))
            #expect(nothing.body == plain.body, "no Accept is a client without AVIF or WebP")
        }
    }

    @Test("q:auto answers X-Quality and X-Image-Score, from the cache too; a fixed quality answers neither")
    func autoQualityHeaders() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(Self.photo))
            let source = origin.url("/photo.jpg").absoluteString
            let made = try await proxy.get("/insecure/rs:fit:320:240/q:auto:0.99/f:jpg/plain/\(source)")
            #expect(made.status == 200)
            let quality = try #require(made.header("x-quality").flatMap(Int.init))
            let score = try #require(made.header("x-image-score").flatMap(Double.init))
            #expect((30...95).contains(quality) && score >= 0.99)
            let hit = try await proxy.get("/insecure/rs:fit:320:240/q:auto:0.99/f:jpg/plain/\(source)")
            #expect(hit.header("x-quality") == made.header("x-quality") && hit.header("x-image-score") == made.header("x-image-score"))
            #expect(hit.body == made.body)
            let lower = try await proxy.get("/insecure/rs:fit:320:240/q:auto:0.97/f:jpg/plain/\(source)")
            #expect(try #require(lower.header("x-quality").flatMap(Int.init)) < quality)
            #expect(lower.body.count < made.body.count)
            let fixed = try await proxy.get("/insecure/rs:fit:320:240/q:80/f:jpg/plain/\(source)")
            #expect(fixed.header("x-quality") == nil && fixed.header("x-image-score") == nil)
        }
    }

    @Test("--quality auto makes auto quality the default of URLs without a quality, with --auto-quality-target")
    func serverDefault() async throws {
        var config = ServerConfig()
        try ServerSetting.quality.apply(["auto"], to: &config)
        try ServerSetting.autoQualityTarget.apply(["0.97"], to: &config)
        try ServerSetting.bestFormats.apply(["jpeg,webp"], to: &config)
        #expect(config.encoding.defaultAutoQuality && config.encoding.autoQualityTarget == 0.97 && config.encoding.bestFormats == [.jpeg, .webp])
        #expect(throws: ServerConfigError.self) { try ServerSetting.autoQualityTarget.apply(["1.2"], to: &config) }
        #expect(throws: ServerConfigError.self) { try ServerSetting.bestFormats.apply(["jpeg,bogus"], to: &config) }
        config.encoding.bestFormats = [.pdf]
        #expect(throws: ServerConfigError.self) { try config.validate() }

        try await TestProxy.with(configure: { $0.encoding.defaultAutoQuality = true; $0.encoding.autoQualityTarget = 0.97 }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(Self.photo))
            let source = origin.url("/photo.jpg").absoluteString
            let auto = try await proxy.get("/insecure/rs:fit:320:240/f:jpg/plain/\(source)")
            #expect(try #require(auto.header("x-image-score").flatMap(Double.init)) >= 0.97)
            let fixed = try await proxy.get("/insecure/rs:fit:320:240/q:60/f:jpg/plain/\(source)")
            #expect(fixed.header("x-quality") == nil)
        }
    }
}
