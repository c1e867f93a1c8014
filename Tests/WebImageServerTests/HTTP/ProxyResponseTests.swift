import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

@Suite("Proxy responses")
struct ProxyResponseTests {
    @Test("client hints, when read, size the image and are named in Vary; without them, no Vary")
    func clientHints() async throws {
        try await TestProxy.with(configure: { $0.responses.enableClientHints = true; $0.encoding.autoWebP = false; $0.encoding.autoAVIF = false }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("", source: origin.url("/photo.jpg"), extension: "png")
            let hinted = try await proxy.get(path, headers: [("Sec-CH-DPR", "2"), ("Sec-CH-Width", "100")])
            // Width 100 is read as 104 (four significant bits), 52 CSS pixels at dpr 2.
            #expect(try ProxyImages.size(of: hinted.body) == PixelSize(width: 104, height: 78))
            #expect(hinted.header("vary") == ClientHints.varyFields)
            // The same path without hints is another variant, not the one remembered for it.
            let plain = try await proxy.get(path)
            #expect(try ProxyImages.size(of: plain.body) == PixelSize(width: 400, height: 300))
            let older = try await proxy.get(path, headers: [("Width", "200")])
            #expect(try ProxyImages.size(of: older.body) == PixelSize(width: 208, height: 156))
        }
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("", source: origin.url("/photo.jpg"), extension: "png"), headers: [("Sec-CH-Width", "100")])
            #expect(try ProxyImages.size(of: reply.body) == PixelSize(width: 400, height: 300))
            #expect(reply.header("vary") == nil)
        }
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_ENABLE_CLIENT_HINTS": "true"], to: &config)
        #expect(config.responses.enableClientHints)
    }

    @Test("--set-canonical-header: images of http(s) sources name them in Link, as imgproxy does; off by default")
    func canonicalHeader() async throws {
        try await TestProxy.with(configure: { $0.responses.setCanonicalHeader = true }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let source = origin.url("/photo.jpg")
            for _ in 0..<2 {  // made, then from memory
                let reply = try await proxy.get(proxyPath("rs:fit:50:50", source: source, extension: "png"))
                #expect(reply.header("link") == "<\(source.absoluteString)>; rel=\"canonical\"")
            }
        }
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/photo.jpg"), extension: "png")).header("link") == nil)
        }
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_SET_CANONICAL_HEADER": "1"], to: &config)
        #expect(config.responses.setCanonicalHeader)
    }

    @Test("--return-attachment: images are attachments unless the URL's return_attachment:0 asks for inline; the variant is shared")
    func returnAttachment() async throws {
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_RETURN_ATTACHMENT": "true"], to: &config)
        #expect(config.responses.returnAttachment)
        try await TestProxy.with(configure: { $0.responses.returnAttachment = true }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let source = origin.url("/photo.jpg")
            let attached = try await proxy.get(proxyPath("rs:fit:50:50", source: source, extension: "png"))
            #expect(attached.header("content-disposition") == "attachment; filename=\"photo.png\"")
            let inline = try await proxy.get(proxyPath("rs:fit:50:50/att:0", source: source, extension: "png"))
            #expect(inline.header("content-disposition") == "inline; filename=\"photo.png\"")
            #expect(inline.body == attached.body)
            #expect(try await proxy.metric("webimage_processed_total") == 1, "the header's default does not split the cache")
        }
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("rs:fit:50:50", source: origin.url("/photo.jpg"), extension: "png"))
            #expect(reply.header("content-disposition") == "inline; filename=\"photo.png\"")
        }
    }

    @Test("--enable-debug-headers: the source's size and length and the result's size, as imgproxy's debug headers; off by default")
    func debugHeaders() async throws {
        try await TestProxy.with(configure: { $0.responses.enableDebugHeaders = true }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            for _ in 0..<2 {  // made, then from memory
                let reply = try await proxy.get(proxyPath("rs:fit:100:100", source: origin.url("/photo.jpg"), extension: "png"))
                #expect(reply.header("x-origin-width") == "400")
                #expect(reply.header("x-origin-height") == "300")
                #expect(reply.header("x-origin-content-length") == String(ProxyImages.jpeg.count))
                #expect(reply.header("x-result-width") == "100")
                #expect(reply.header("x-result-height") == "75")
            }
        }
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("rs:fit:100:100", source: origin.url("/photo.jpg"), extension: "png"))
            #expect(reply.header("x-origin-width") == nil && reply.header("x-result-width") == nil)
        }
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_ENABLE_DEBUG_HEADERS": "true"], to: &config)
        #expect(config.responses.enableDebugHeaders)
    }

    @Test("ETag buster, Last-Modified and If-Modified-Since as imgproxy's USE_LAST_MODIFIED and busters govern them")
    func validators() async throws {
        let buster = Date(timeIntervalSince1970: 4_102_444_800)  // 2100-01-01, later than any variant
        try await TestProxy.with(configure: { $0.responses.etagBuster = "v2"; $0.responses.lastModifiedBuster = buster }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("rs:fit:30:30", source: origin.url("/photo.jpg"))
            let reply = try await proxy.get(path)
            let etag = try #require(reply.header("etag"))
            #expect(etag.hasPrefix("\"v2/") && etag.hasSuffix("\""))
            #expect(reply.header("last-modified") == "Fri, 01 Jan 2100 00:00:00 GMT")
            #expect(try await proxy.get(path, headers: [("If-None-Match", etag)]).status == 304)
            let unbusted = "\"" + etag.dropFirst(4)
            #expect(try await proxy.get(path, headers: [("If-None-Match", String(unbusted))]).status == 200)
            #expect(try await proxy.get(path, headers: [("If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT")]).status == 304)
            #expect(try await proxy.get(path, headers: [("If-Modified-Since", "Thu, 31 Dec 2099 23:00:00 GMT")]).status == 200)
            // If-None-Match decides alone when it is there.
            #expect(try await proxy.get(path, headers: [("If-None-Match", "\"other\""), ("If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT")]).status == 200)
        }
        try await TestProxy.with(configure: { $0.responses.useLastModified = false }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("rs:fit:30:30", source: origin.url("/photo.jpg"))
            let reply = try await proxy.get(path)
            #expect(reply.header("last-modified") == nil && reply.header("etag") != nil)
            #expect(try await proxy.get(path, headers: [("If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT")]).status == 200)
        }
        var config = ServerConfig()
        try ImgproxyEnvironment.apply([
            "IMGPROXY_ETAG_BUSTER": "b1", "IMGPROXY_USE_LAST_MODIFIED": "false", "IMGPROXY_LAST_MODIFIED_BUSTER": "2026-01-31T12:00:00Z",
        ], to: &config)
        #expect(config.responses.etagBuster == "b1" && !config.responses.useLastModified)
        #expect(config.responses.lastModifiedBuster == Date(timeIntervalSince1970: 1_769_860_800))
        #expect(throws: ServerConfigError.self) { try ImgproxyEnvironment.apply(["IMGPROXY_LAST_MODIFIED_BUSTER": "yesterday"], to: &config) }
    }

    @Test("JPEG XL is written when the URL asks for it, by option or extension; without --auto-jxl, Accept does not choose it")
    func jpegXL() async throws {
        try await TestProxy.with(configure: { $0.encoding.formatQuality = [.jxl: 60] }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            for path in [proxyPath("f:jxl/rs:fit:64:64", source: origin.url("/photo.jpg")), proxyPath("rs:fit:64:64", source: origin.url("/photo.jpg"), extension: "jxl")] {
                let reply = try await proxy.get(path)
                #expect(reply.status == 200, "\(reply.text.prefix(200))")
                #expect(reply.header("content-type") == "image/jxl")
                #expect(ImageFormat(data: reply.body) == .jxl)
            }
            let negotiated = try await proxy.get(proxyPath("rs:fit:64:64", source: origin.url("/photo.jpg")), headers: [("Accept", "image/jxl,*/*")])
            #expect(negotiated.header("content-type") == "image/jpeg")
        }
    }

    /// imgproxy's response writer: `exp` caps `max-age` (`SetExpires`), and no positive
    /// max-age gives `no-cache`.
    @Test("a URL's expires caps max-age, counted from now; a TTL of 0 is no-cache")
    func maxAgeFromExpiresAndTTL() async throws {
        try await TestProxy.with(configure: { $0.caching.ttl = 3600 }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let asked = Date()
            let soon = Int(asked.timeIntervalSince1970) + 120
            let capped = try await proxy.get(proxyPath("exp:\(soon)", source: origin.url("/photo.jpg")))
            #expect(capped.status == 200)
            let maxAge = try #require(capped.header("cache-control").flatMap { Int($0.split(separator: ",")[0].split(separator: "=").last ?? "") })
            // Counted from when the answer was made: no more than 120, less by the time the request took.
            let took = Int(Date().timeIntervalSince(asked).rounded(.up))
            #expect((120 - took - 1...120).contains(maxAge), "max-age \(maxAge) after \(took) s")
            // The same variant without exp keeps the TTL; an expiry past the TTL leaves it.
            #expect(try await proxy.get(proxyPath("", source: origin.url("/photo.jpg"))).header("cache-control") == "max-age=3600, public")
            let late = Int(Date().timeIntervalSince1970) + 100_000
            #expect(try await proxy.get(proxyPath("exp:\(late)", source: origin.url("/photo.jpg"))).header("cache-control") == "max-age=3600, public")
        }
        try await TestProxy.with(configure: { $0.caching.ttl = 0 }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            #expect(try await proxy.get(proxyPath("", source: origin.url("/photo.jpg"))).header("cache-control") == "no-cache")
        }
    }

    @Test("S6 caching headers: Cache-Control with the TTL, strong ETag, Last-Modified; 304 on If-None-Match")
    func cachingHeaders() async throws {
        try await TestProxy.with(configure: { $0.caching.ttl = 3600 }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("", source: origin.url("/photo.jpg"), extension: "png")
            let reply = try await proxy.get(path)
            #expect(reply.status == 200)
            #expect(reply.header("content-type") == "image/png")
            #expect(reply.header("content-length") == String(reply.body.count))
            #expect(reply.header("cache-control") == "max-age=3600, public")
            let etag = try #require(reply.header("etag"))
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
            #expect(reply.header("last-modified")?.hasSuffix("GMT") == true)
            #expect(reply.header("content-disposition") == "inline; filename=\"photo.png\"")
            #expect(reply.header("content-security-policy") == "default-src 'none'; style-src 'unsafe-inline'; sandbox")
            #expect(reply.header("x-content-type-options") == "nosniff")
            #expect(reply.header("vary") == nil)  // the format is explicit

            let again = try await proxy.get(path, headers: [("If-None-Match", etag)])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            #expect(again.header("etag") == etag)
            let other = try await proxy.get(path, headers: [("If-None-Match", "\"something-else\"")])
            #expect(other.status == 200)
            #expect(other.header("etag") == etag)
        }
    }

    @Test("S6 errors carry no long-lived caching headers")
    func errorsAreNotCacheable() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/gone.jpg", .status(404))
            for path in [proxyPath("", source: origin.url("/gone.jpg")), "/insecure/rs:what:1/abc", "/favicon.ico"] {
                let reply = try await proxy.get(path)
                #expect(reply.status >= 400)
                #expect(reply.header("cache-control") == "no-store")
                #expect(reply.header("etag") == nil)
            }
        }
    }

    @Test("S7 Accept: image/avif or image/webp picks them when no format is asked, with Vary: Accept")
    func negotiation() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let path = proxyPath("rs:fit:100:100", source: origin.url("/photo.jpg"))
            let avif = try await proxy.get(path, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(avif.status == 200)
            #expect(avif.header("content-type") == "image/avif")
            #expect(ImageFormat(data: avif.body) == .avif)
            #expect(avif.header("vary") == "Accept")
            let webp = try await proxy.get(path, headers: [("Accept", "image/webp,*/*")])
            #expect(webp.header("content-type") == "image/webp")
            #expect(ImageFormat(data: webp.body) == .webp)
            #expect(webp.header("vary") == "Accept")
            let plain = try await proxy.get(path, headers: [("Accept", "*/*")])
            #expect(plain.header("content-type") == "image/jpeg")
            #expect(plain.header("vary") == "Accept")
            #expect(Set([avif.header("etag"), webp.header("etag"), plain.header("etag")]).count == 3)
            // An explicit format wins over Accept and does not vary.
            let explicit = try await proxy.get(proxyPath("rs:fit:100:100/f:png", source: origin.url("/photo.jpg")), headers: [("Accept", "image/avif")])
            #expect(explicit.header("content-type") == "image/png")
            #expect(explicit.header("vary") == nil)
            // One source download for all four variants.
            #expect(origin.requestCount("/photo.jpg") == 1)
        }
    }

    @Test("S7 with negotiation off, Accept is ignored and nothing varies")
    func negotiationOff() async throws {
        try await TestProxy.with(configure: { $0.encoding.autoWebP = false; $0.encoding.autoAVIF = false }) { (origin, proxy) async throws in
            origin.register("/photo.jpg", .image(ProxyImages.jpeg))
            let reply = try await proxy.get(proxyPath("", source: origin.url("/photo.jpg")), headers: [("Accept", "image/avif,image/webp")])
            #expect(reply.header("content-type") == "image/jpeg")
            #expect(reply.header("vary") == nil)
        }
    }

    @Test("S8 concurrent identical requests → one source download and one transform; then served from cache")
    func singleFlight() async throws {
        try await TestProxy.with(configure: { $0.limits.workers = 4 }) { (origin, proxy) async throws in
            origin.register("/slow.jpg", .delayed(.milliseconds(300), then: .image(ProxyImages.jpeg)))
            let path = proxyPath("rs:fit:120:120", source: origin.url("/slow.jpg"))
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        let reply = try await proxy.get(path, headers: [("Accept", "image/jpeg")])
                        return (reply.status, reply.header("etag"))
                    }
                }
                var results: [(Int, String?)] = []
                for try await result in group { results.append(result) }
                return results
            }
            #expect(statuses.allSatisfy { $0.0 == 200 })
            #expect(Set(statuses.map(\.1)).count == 1)
            #expect(origin.requestCount("/slow.jpg") == 1)
            #expect(try await proxy.metric("webimage_processed_total") == 1)

            // (Requests the client queued behind its connection limit may already be memory hits.)
            let hitsBefore = try await proxy.metric("webimage_cache_hits_total{type=\"memory\"}")
            let cached = try await proxy.get(path, headers: [("Accept", "image/jpeg")])
            #expect(cached.status == 200)
            #expect(origin.requestCount("/slow.jpg") == 1)
            #expect(try await proxy.metric("webimage_processed_total") == 1)
            #expect(try await proxy.metric("webimage_cache_hits_total{type=\"memory\"}") == hitsBefore + 1)
            #expect(await eventually { proxy.variantFilesOnDisk() == 1 })
        }
    }
}

extension ProxyResponseTests {
    // SPEC HP1
    @Test("HP1 a request that times out answers 504 and its work stops: the download is closed and nothing is made or cached")
    func timedOutWorkStops() async throws {
        try await TestProxy.with(configure: { $0.limits.requestTimeout = .seconds(1); $0.sources.downloadTimeout = .seconds(600) }) { (origin, proxy) async throws in
            let gate = TestOriginGate()
            origin.register("/late.jpg", .gated(gate, then: .image(ProxyImages.jpeg)))
            let path = proxyPath("rs:fit:40:40", source: origin.url("/late.jpg"))
            let timedOut = try await proxy.get(path, headers: [("Accept", "image/jpeg")])
            #expect(timedOut.status == 504)
            // Under load the timeout may come before the download starts: either way the
            // request's work ends, and no download of it is left or finished.
            #expect(await eventually { proxy.server.manager.pipeline.inFlightCount == 0 })
            #expect(await eventually { origin.inFlightCount == 0 }, "nobody waits for the download any more")
            gate.open()
            #expect(origin.completedCount("/late.jpg") == 0)
            #expect(proxy.variantFilesOnDisk() == 0)
            #expect(try await proxy.metric("webimage_processed_total") == 0)
        }
    }
}
