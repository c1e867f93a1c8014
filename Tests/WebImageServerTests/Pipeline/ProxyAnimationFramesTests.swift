import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// Animations under imgproxy's frame rule: the first `max_animation_frames` frames are
/// processed, and at imgproxy's default of 1 the answer is a still of the first frame.
@Suite("Proxy animation frames")
struct ProxyAnimationFramesTests {
    /// Six 24 × 16 frames of different colours: which frames came out shows in the pixels.
    static func frames() throws -> [Image] {
        let colours: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255], [255, 0, 255]]
        return try colours.map { colour in
            try Image(pixels: [UInt8]((0..<24 * 16).flatMap { _ in colour }), width: 24, height: 16, channels: 3)
        }
    }

    static func animation(as format: ImageFormat) throws -> Data {
        let frames = try frames()
        return try TestImages.encode(try Image.animated(frames: frames, durations: Array(repeating: 0.1, count: frames.count)), as: format, quality: 95)
    }

    @Test("S4: under imgproxy's defaults an animated GIF or WebP answers 200 with one frame, the first", arguments: [ImageFormat.gif, .webp])
    func imgproxyDefaultsGiveTheFirstFrame(_ format: ImageFormat) async throws {
        try await TestProxy.with(configure: ProxyColorTests.configure(.imgproxy)) { (origin, proxy) async throws in
            origin.register("/a", .image(try Self.animation(as: format), contentType: "image/\(format.rawValue)"))
            for options in ["", "rs:fit:12:8", "f:png", "f:\(format.fileExtension)"] {
                let reply = try await proxy.get(proxyPath(options, source: origin.url("/a")))
                #expect(reply.status == 200, "\(options): \(reply.status) \(reply.text.prefix(200))")
                guard reply.status == 200 else { continue }
                let image = try VipsCoder.shared.decode(reply.body)
                #expect(image.frameCount == 1, "\(options)")
                #expect(close(try image.pixel(x: 2, y: 2), [255, 0, 0], tolerance: 12), "\(options): the first frame, red")
            }
        }
    }

    @Test("S4: with max_animation_frames 3 the first three frames are kept, in order")
    func firstFramesKept() async throws {
        try await TestProxy.with(configure: { $0.limits.maxAnimationFrames = 3 }) { (origin, proxy) async throws in
            origin.register("/a.gif", .image(try Self.animation(as: .gif), contentType: "image/gif"))
            let reply = try await proxy.get(proxyPath("", source: origin.url("/a.gif")))
            #expect(reply.status == 200)
            let image = try VipsCoder.shared.decode(reply.body)
            #expect(image.frameCount == 3 && image.frameDurations.count == 3)
            for (index, colour) in [[255, 0, 0], [0, 255, 0], [0, 0, 255]].enumerated() {
                #expect(close(try image.pixel(x: 2, y: 2, frame: index), colour, tolerance: 12), "frame \(index)")
            }
        }
    }

    @Test("an animation negotiated as AVIF is WebP for a client that takes WebP, else its own format; named AVIF, a still")
    func negotiatedAVIFAnimation() async throws {
        try await TestProxy.with(configure: { $0.encoding.autoAVIF = true; $0.encoding.autoWebP = true }) { (origin, proxy) async throws in
            origin.register("/a.gif", .image(try Self.animation(as: .gif), contentType: "image/gif"))
            origin.register("/s.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
            let gif = proxyPath("", source: origin.url("/a.gif"))
            let browser = try await proxy.get(gif, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(ImageFormat(data: browser.body) == .webp)
            #expect(try VipsCoder.shared.inspect(browser.body).frameCount == 6)
            let avifOnly = try await proxy.get(gif, headers: [("Accept", "image/avif")])
            #expect(ImageFormat(data: avifOnly.body) == .gif)
            #expect(try VipsCoder.shared.inspect(avifOnly.body).frameCount == 6)
            let still = try await proxy.get(proxyPath("", source: origin.url("/s.jpg")), headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(ImageFormat(data: still.body) == .avif)
            let named = try await proxy.get(proxyPath("f:avif", source: origin.url("/a.gif")))
            #expect(named.status == 200 && ImageFormat(data: named.body) == .avif)
            #expect(try VipsCoder.shared.inspect(named.body).frameCount == 1)
        }
    }
}
