import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// Colour profiles through the proxy, under both profiles: every test picture comes out as
/// a browser would show the original, and `strip_color_profile:0` keeps the profile.
@Suite("Proxy colour management")
struct ProxyColorTests {
    /// The test server's settings with the defaults of `profile`.
    static func configure(_ profile: ServerProfile) -> (inout ServerConfig) -> Void {
        { config in
            let test = config
            config = profile.defaults
            config.listen.port = test.listen.port
            config.listen.host = "127.0.0.1"
            config.sources.allowLoopback = true
            config.limits.workers = test.limits.workers
            config.caching.cacheDirectory = test.caching.cacheDirectory
            config.sources.downloadTimeout = test.sources.downloadTimeout
            config.limits.requestTimeout = .seconds(300)
        }
    }

    @Test("CM1, CM2: every space and container, resized by the proxy, is within ΔE76 3 of the original", arguments: [ServerProfile.webimage, .imgproxy])
    func resizedPicturesShowTheOriginal(_ profile: ServerProfile) async throws {
        try #require(ColorTestPictures.colordInstalled, "colord-data's ICC profiles are missing: run scripts/bootstrap")
        try await TestProxy.with(configure: Self.configure(profile)) { (origin, proxy) async throws in
            for testCase in ColorTestPictures.cases {
                let path = "/\(testCase.space)-\(testCase.container)"
                origin.register(path, .image(try ColorTestPictures.picture(testCase), contentType: "application/octet-stream"))
                let reply = try await proxy.get(proxyPath("rs:fill:48:32/q:95", source: origin.url(path)))
                #expect(reply.status == 200, "\(testCase): \(reply.status) \(reply.text.prefix(200))")
                guard reply.status == 200 else { continue }
                let difference = try ColorTestPictures.meanDeltaE(output: reply.body, for: testCase, quality: 95)
                #expect(difference <= 3, "\(profile) \(testCase) as \(ImageFormat(data: reply.body)): mean ΔE76 \(difference)")
            }
        }
    }

    @Test("CM4: strip_color_profile:0 keeps the source's profile and its pixels; scp:1 converts", arguments: [ServerProfile.webimage, .imgproxy])
    func keptProfile(_ profile: ServerProfile) async throws {
        try await TestProxy.with(configure: Self.configure(profile)) { (origin, proxy) async throws in
            let testCase = ColorTestPictures.Case(space: .displayP3, container: .png16)
            origin.register("/p3.png", .image(try ColorTestPictures.picture(testCase), contentType: "image/png"))
            var keeping = ImageDecodeOptions()
            keeping.keepsColorProfile = true
            let kept = try await proxy.get(proxyPath("rs:fill:48:32/scp:0", source: origin.url("/p3.png")))
            #expect(try VipsCoder.shared.decode(kept.body, options: keeping).colorProfile == ICCProfile.displayP3)
            let converted = try await proxy.get(proxyPath("rs:fill:48:32/scp:1/sm:0", source: origin.url("/p3.png")))
            #expect(try VipsCoder.shared.decode(converted.body, options: keeping).colorProfile == nil)
            for reply in [kept, converted] {
                #expect(try ColorTestPictures.meanDeltaE(output: reply.body, for: testCase, quality: 95) <= 3)
            }
        }
    }

    @Test("/info reports the colour space and the profile's description")
    func infoReportsColour() async throws {
        try #require(ColorTestPictures.colordInstalled, "colord-data's ICC profiles are missing: run scripts/bootstrap")
        try await TestProxy.with { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(try ColorTestPictures.picture(.init(space: .adobeRGB, container: .jpeg)), contentType: "image/jpeg"))
            let reply = try await proxy.get("/info" + proxyPath("", source: origin.url("/a.jpg")))
            let json = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any], "\(reply.status) \(reply.text)")
            #expect(json["colorSpace"] as? String == "rgb")
            #expect(json["colorProfile"] as? String == "Compatible with Adobe RGB (1998)")
        }
    }
}

@Suite("Proxy resizes in linear light")
struct ProxyLinearLightTests {
    @Test("--use-linear-colorspace (IMGPROXY_USE_LINEAR_COLORSPACE) resizes in linear light")
    func linearColorspace() async throws {
        var config = ServerConfig()
        try ImgproxyEnvironment.apply(["IMGPROXY_USE_LINEAR_COLORSPACE": "true"], to: &config)
        #expect(config.encoding.useLinearColorspace)
        var lines: [UInt8] = []
        for y in 0..<200 { lines += [UInt8](repeating: y % 2 == 0 ? 0 : 255, count: 200 * 3) }
        let png = try TestImages.encode(try Image(pixels: lines, width: 200, height: 200, channels: 3), as: .png)
        for (linear, expected) in [(false, 128), (true, 188)] {
            try await TestProxy.with(configure: { $0.encoding.useLinearColorspace = linear }) { (origin, proxy) async throws in
                origin.register("/lines.png", .image(png, contentType: "image/png"))
                for options in ["rs:fit:50:50", "rs:fill:40:50"] {
                    let reply = try await proxy.get(proxyPath(options, source: origin.url("/lines.png"), extension: "png"))
                    let image = try VipsCoder.shared.decode(reply.body)
                    let grey = try image.pixel(x: image.pixelSize.width / 2, y: image.pixelSize.height / 2)[1]
                    #expect(abs(grey - expected) <= 8, "\(options) linear \(linear): \(grey) \(image.pixelSize)")
                }
            }
        }
    }
}
