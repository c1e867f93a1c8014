import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

// The output, handling, filter and security options end to end: a live proxy fetches the
// source from the origin, the test reads the reply's headers, size and pixels.
@Suite("Proxy processing: output, filter and security options")
struct OutputFilterSecurityProcessingTests {
    static func decode(_ reply: TestProxy.Reply) throws -> Image {
        try VipsCoder.shared.decode(reply.body, options: ImageDecodeOptions())
    }

    /// A `width` × `height` white PNG with a red rectangle at `rect`.
    static func framedPNG(width: Int, height: Int, rect: PixelRect) throws -> Data {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let inside = (rect.x..<rect.x + rect.width).contains(x) && (rect.y..<rect.y + rect.height).contains(y)
                pixels += inside ? [255, 0, 0] : [255, 255, 255]
            }
        }
        return try TestImages.encode(try Image(pixels: pixels, width: width, height: height, channels: 3), as: .png)
    }

    /// A 3-frame 20 × 20 GIF.
    static func animatedGIF() throws -> Data {
        let frame = try TestImages.quadrants(width: 20, height: 20)
        return try TestImages.encode(try Image.animated(frames: [frame, frame, frame], durations: [0.1, 0.1, 0.1]), as: .gif)
    }

    func get(_ proxy: TestProxy, _ options: String, _ url: URL, extension ext: String? = nil, headers: [(String, String)] = []) async throws -> TestProxy.Reply {
        let reply = try await proxy.get(proxyPath(options, source: url, extension: ext), headers: headers)
        return reply
    }

    @Test("background_alpha makes the background translucent")
    func backgroundAlpha() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/t.png", .image(try TestImages.encode(try TestImages.halfTransparent(width: 40, height: 40), as: .png)))
            let url = origin.url("/t.png")
            let opaque = try Self.decode(try await get(proxy, "bg:ff0000", url, extension: "png"))
            #expect(close(try opaque.pixel(x: 2, y: 2), [255, 0, 0], tolerance: 0))
            let translucent = try Self.decode(try await get(proxy, "bg:ff0000/bga:0.5", url, extension: "png"))
            #expect(close(try translucent.pixel(x: 2, y: 2), [255, 0, 0, 128], tolerance: 1))
            #expect(close(try translucent.pixel(x: 30, y: 2), [0, 255, 0, 255], tolerance: 0), "the opaque half is untouched")
            // Padding takes the translucent background too.
            let padded = try Self.decode(try await get(proxy, "pd:10/bg:0000ff/bga:0.2", url, extension: "png"))
            #expect(close(try padded.pixel(x: 2, y: 2), [0, 0, 255, 51], tolerance: 1))
        }
    }

    @Test("format_quality sets the quality of its format, behind an explicit quality")
    func formatQuality() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/g.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
            let url = origin.url("/g.jpg")
            let low = try await get(proxy, "f:jpg/fq:jpg:10", url).body.count
            let high = try await get(proxy, "f:jpg/fq:jpg:95", url).body.count
            let plain = try await get(proxy, "f:jpg", url).body.count
            #expect(low < plain && plain < high, "\(low) \(plain) \(high)")
            #expect(try await get(proxy, "f:jpg/fq:webp:10", url).body.count == plain, "another format's quality does not apply")
            #expect(try await get(proxy, "f:jpg/q:95/fq:jpg:10", url).body.count == high, "an explicit quality wins")
        }
    }

    @Test("skip_processing serves a listed source format as it is, unless another format is asked for")
    func skipProcessing() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            let png = ProxyImages.png
            origin.register("/s.png", .image(png))
            let url = origin.url("/s.png")
            let skipped = try await get(proxy, "w:50/skp:png", url)
            #expect(skipped.status == 200 && skipped.body == png)
            #expect(skipped.header("Content-Type") == "image/png")
            let negotiated = try await get(proxy, "w:50/skp:jpg:png", url, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(negotiated.body == png, "Accept does not undo skipping")
            let sameFormat = try await get(proxy, "w:50/skp:png", url, extension: "png")
            #expect(sameFormat.body == png)
            let processed = try await get(proxy, "w:50/skp:jpg", url, extension: "png")
            #expect(try ProxyImages.size(of: processed.body) == PixelSize(width: 50, height: 25))
            let converted = try await get(proxy, "w:50/skp:png", url, extension: "webp")
            #expect(ImageFormat(data: converted.body) == .webp)
        }
    }

    @Test("filename and return_attachment set Content-Disposition as imgproxy writes it, sharing one variant")
    func contentDisposition() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/photo.png", .image(ProxyImages.png))
            let url = origin.url("/photo.png")
            let plain = try await get(proxy, "w:50", url, extension: "png")
            #expect(plain.header("Content-Disposition") == "inline; filename=\"photo.png\"")
            let named = try await get(proxy, "w:50/fn:holiday", url, extension: "png")
            #expect(named.header("Content-Disposition") == "inline; filename=\"holiday.png\"")
            let encoded = try await get(proxy, "w:50/fn:\(base64URL("my\"file")):1/att:1", url, extension: "png")
            #expect(encoded.header("Content-Disposition") == "attachment; filename=\"my%22file.png\"")
            let attachment = try await get(proxy, "w:50/att:1", url, extension: "png")
            #expect(attachment.header("Content-Disposition") == "attachment; filename=\"photo.png\"")
            #expect(named.body == plain.body && attachment.body == plain.body)
            #expect(try await proxy.metric("webimage_processed_total") == 1, "the header-only options do not split the cache")
        }
    }

    @Test("strip_color_profile and keep_copyright reach the encoder; enforce_thumbnail falls back to the main image")
    func metadataOptions() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/e.jpg", .image(try TestImages.jpeg(make: "CamMaker", copyright: "ACME Pictures"), contentType: "image/jpeg"))
            let url = origin.url("/e.jpg")
            func has(_ reply: TestProxy.Reply, _ text: String) -> Bool { reply.body.range(of: Data(text.utf8)) != nil }
            let stripped = try await get(proxy, "f:jpg", url)
            #expect(!has(stripped, "ACME Pictures") && !has(stripped, "CamMaker"))
            let copyright = try await get(proxy, "f:jpg/kcr:1", url)
            #expect(has(copyright, "ACME Pictures") && !has(copyright, "CamMaker"))
            let everything = try await get(proxy, "f:jpg/sm:0", url)
            #expect(has(everything, "ACME Pictures") && has(everything, "CamMaker"))
            let converted = try await get(proxy, "f:jpg/sm:0/scp:1", url)
            #expect(converted.status == 200 && has(converted, "CamMaker"), "without a profile to convert, scp keeps the rest")
            origin.register("/a.avif", .image(try TestImages.encode(try TestImages.quadrants(width: 64, height: 48), as: .avif), contentType: "image/avif"))
            let thumbnail = try await get(proxy, "eth:1/w:32", origin.url("/a.avif"), extension: "png")
            #expect(try ProxyImages.size(of: thumbnail.body) == PixelSize(width: 32, height: 24))
        }
    }

    @Test("trim cuts the border before the geometry; pixelate averages blocks")
    func trimAndPixelate() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/f.png", .image(try Self.framedPNG(width: 400, height: 300, rect: PixelRect(x: 100, y: 50, width: 200, height: 100))))
            let url = origin.url("/f.png")
            let trimmed = try Self.decode(try await get(proxy, "t:10", url, extension: "png"))
            #expect(trimmed.pixelSize == PixelSize(width: 200, height: 100))
            #expect(close(try trimmed.pixel(x: 0, y: 0), [255, 0, 0], tolerance: 0))
            let resized = try await get(proxy, "t:10/rs:fit:100:100", url, extension: "png")
            #expect(try ProxyImages.size(of: resized.body) == PixelSize(width: 100, height: 50), "the trimmed image is what is resized")
            let equal = try await get(proxy, "t:10:ffffff:1:1", url, extension: "png")
            #expect(try ProxyImages.size(of: equal.body) == PixelSize(width: 200, height: 200))
            origin.register("/g.png", .image(try TestImages.encode(try TestImages.gradient(width: 64, height: 48), as: .png)))
            let blocks = try Self.decode(try await get(proxy, "pix:16", origin.url("/g.png"), extension: "png"))
            #expect(blocks.pixelSize == PixelSize(width: 64, height: 48))
            #expect(try blocks.pixel(x: 16, y: 16) == blocks.pixel(x: 31, y: 31))
            #expect(try blocks.pixel(x: 0, y: 0) != blocks.pixel(x: 63, y: 47))
        }
    }

    @Test("security options: refused unless allowed; when allowed, each limit applies to its URL only")
    func securityOptions() async throws {
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/q.png", .image(ProxyImages.png))
            let refused = try await get(proxy, "msr:100", origin.url("/q.png"))
            #expect(refused.status == 403 && refused.text.contains("msr:100"))
        }
        try await TestProxy.with(configure: { $0.signing.allowSecurityOptions = true }) { (origin, proxy) async throws in
            origin.register("/q.png", .image(ProxyImages.png))
            origin.register("/a.gif", .image(try Self.animatedGIF(), contentType: "image/gif"))
            let png = origin.url("/q.png"), gif = origin.url("/a.gif")
            #expect(try await get(proxy, "w:50", png).status == 200)
            // 200 × 100 = 20,000 pixels.
            let small = try await get(proxy, "w:50/msr:0.01", png)
            #expect(small.status == 422 && small.text.contains("20000"), "\(small.text)")
            #expect(try await get(proxy, "w:50/msr:0.02", png).status == 200)
            let bytes = try await get(proxy, "w:40/msfs:100", png)
            #expect(bytes.status == 422 && bytes.text.contains("100 bytes"), "\(bytes.text)")
            #expect(try await get(proxy, "w:40/msfs:0", png).status == 200)
            // Three 20 × 20 frames: 1,200 pixels, 400 a frame.
            // S4: the first max_animation_frames frames are processed; the pixel limit counts them.
            let frames = try await get(proxy, "maf:2", gif, extension: "gif")
            #expect(frames.status == 200, "\(frames.text)")
            #expect(try VipsCoder.shared.inspect(frames.body).frameCount == 2)
            #expect(try await get(proxy, "msr:0.001", gif, extension: "gif").status == 422)
            #expect(try await get(proxy, "msr:0.001/maf:2", gif, extension: "gif").status == 200)
            #expect(try await get(proxy, "msr:0.001/mafr:0.0004", gif, extension: "gif").status == 200)
            #expect(try await get(proxy, "msr:0.001/mafr:0.0003", gif, extension: "gif").status == 422)
            let fitted = try await get(proxy, "mrd:60", png, extension: "png")
            #expect(try ProxyImages.size(of: fitted.body) == PixelSize(width: 60, height: 30))
            // imgproxy's limitScale: 200×100 plus 50 on each side is 300×200, scaled by 1/3:
            // a 67×33 image and 17 (16.67 rounded) of padding on each side.
            let padded = try await get(proxy, "mrd:100/pd:50", png, extension: "png")
            #expect(try ProxyImages.size(of: padded.body) == PixelSize(width: 101, height: 67))
        }
    }

    /// A 10 × 10 opaque blue PNG.
    static let mark = try! TestImages.encode(try! Image(pixels: [UInt8]((0..<100).flatMap { _ in [0, 0, 255] as [UInt8] }), width: 10, height: 10, channels: 3), as: .png)

    @Test("watermark from --watermark-data: position, offsets, opacity, tiles, scale")
    func watermarkFromData() async throws {
        try await TestProxy.with(configure: { $0.encoding.watermarkData = Self.mark.base64EncodedString() }) { (origin, proxy) async throws in
            origin.register("/w.png", .image(try Self.framedPNG(width: 100, height: 80, rect: PixelRect(x: 0, y: 0, width: 0, height: 0))))
            let url = origin.url("/w.png")
            let corner = try Self.decode(try await get(proxy, "wm:1:nowe:5:5", url, extension: "png"))
            #expect(close(try corner.pixel(x: 6, y: 6), [0, 0, 255], tolerance: 0))
            #expect(close(try corner.pixel(x: 3, y: 3), [255, 255, 255], tolerance: 0))
            let faint = try Self.decode(try await get(proxy, "wm:0.5:soea", url, extension: "png"))
            #expect(close(try faint.pixel(x: 95, y: 75), [128, 128, 255], tolerance: 2))
            let scaled = try Self.decode(try await get(proxy, "wm:1:ce:0:0:0.5", url, extension: "png"))
            #expect(close(try scaled.pixel(x: 31, y: 21), [0, 0, 255], tolerance: 0), "40 × 40 in the middle")
            let tiled = try Self.decode(try await get(proxy, "wm:1:re:10:10", url, extension: "png"))
            #expect(close(try tiled.pixel(x: 90, y: 60), [0, 0, 255], tolerance: 0))
            #expect(close(try tiled.pixel(x: 20, y: 20), [255, 255, 255], tolerance: 0))
            // dpr scales pixel offsets: 5 × 2 = 10.
            let dpr = try Self.decode(try await get(proxy, "wm:1:nowe:5:5/dpr:2", url, extension: "png"))
            #expect(close(try dpr.pixel(x: 8, y: 8), [255, 255, 255], tolerance: 0))
            #expect(close(try dpr.pixel(x: 11, y: 11), [0, 0, 255], tolerance: 0))
        }
    }

    @Test("watermark from --watermark-path and --watermark-url, with the base opacity; without one configured the option does nothing")
    func watermarkSources() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-mark-\(UUID().uuidString).png")
        try Self.mark.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let white = try Self.framedPNG(width: 40, height: 40, rect: PixelRect(x: 0, y: 0, width: 0, height: 0))
        try await TestProxy.with(configure: { $0.encoding.watermarkPath = file.path; $0.encoding.watermarkOpacity = 0.5 }) { (origin, proxy) async throws in
            origin.register("/w.png", .image(white))
            let marked = try Self.decode(try await get(proxy, "wm:1", origin.url("/w.png"), extension: "png"))
            #expect(close(try marked.pixel(x: 20, y: 20), [128, 128, 255], tolerance: 2))
        }
        let markOrigin = try await TestOrigin.start()
        markOrigin.register("/mark.png", .image(Self.mark))
        try await TestProxy.with(configure: { $0.encoding.watermarkURL = markOrigin.url("/mark.png").absoluteString }) { (origin, proxy) async throws in
            origin.register("/w.png", .image(white))
            let marked = try Self.decode(try await get(proxy, "wm:1", origin.url("/w.png"), extension: "png"))
            #expect(close(try marked.pixel(x: 20, y: 20), [0, 0, 255], tolerance: 0))
        }
        try await markOrigin.shutdown()
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/w.png", .image(white))
            let unmarked = try Self.decode(try await get(proxy, "wm:1", origin.url("/w.png"), extension: "png"))
            #expect(close(try unmarked.pixel(x: 20, y: 20), [255, 255, 255], tolerance: 0))
        }
    }

    @Test("watermark and security settings are validated")
    func settings() throws {
        var config = ServerConfig()
        try ServerSetting.apply(environment: [
            "WEBIMAGE_ALLOW_SECURITY_OPTIONS": "true", "WEBIMAGE_WATERMARK_OPACITY": "0.25",
            "WEBIMAGE_WATERMARK_PATH": "/tmp/mark.png", "WEBIMAGE_WATERMARK_URL": "https://example.com/m.png",
            "WEBIMAGE_WATERMARK_DATA": Self.mark.base64EncodedString(),
        ], to: &config)
        #expect(config.signing.allowSecurityOptions && config.encoding.watermarkOpacity == 0.25)
        #expect(config.encoding.watermarkPath == "/tmp/mark.png" && config.encoding.watermarkURL == "https://example.com/m.png")
        #expect(ServerSetting.allowSecurityOptions.flag == "allow-security-options")
        #expect(ServerSetting.watermarkURL.flag == "watermark-url" && ServerSetting.watermarkURL.environmentName == "WEBIMAGE_WATERMARK_URL")
        #expect(throws: ServerConfigError.self) { try ServerSetting.watermarkOpacity.apply(["1.5"], to: &config) }
        var bad = ServerConfig()
        bad.encoding.watermarkData = "!!!"
        #expect(throws: ServerConfigError.self) { try bad.validate() }
        bad = ServerConfig()
        bad.encoding.watermarkURL = "ftp://example.com/m.png"
        #expect(throws: ServerConfigError.self) { try bad.validate() }
        bad = ServerConfig()
        bad.encoding.watermarkPath = "/nonexistent/mark.png"
        #expect(throws: ServerConfigError.self) { try ProxyServer(config: bad) }
        bad = ServerConfig()
        bad.encoding.watermarkData = Data("not an image".utf8).base64EncodedString()
        #expect(throws: ServerConfigError.self) { try ProxyServer(config: bad) }
    }
}
