import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("AnimatedImage: frames decoded on demand")
struct AnimatedImageTests {
    @Test("K2 the header gives the frame count, durations and loop count a whole decode has, without decoding a frame")
    func K2_headerFacts() throws {
        let gif = try AnimationFixtures.encoded(frames: 12, loopCount: 3)
        let animation = try AnimatedImage(data: gif)
        let whole = try VipsCoder.shared.decode(gif)
        #expect(animation.format == .gif)
        #expect(animation.frameCount == 12 && whole.frameCount == 12)
        #expect(animation.frameDurations == whole.frameDurations)
        #expect(animation.frameDurations == AnimationFixtures.durations(12))
        #expect(animation.loopCount == 3 && whole.loopCount == 3)
        #expect(animation.pixelSize == whole.pixelSize)
        #expect(abs(animation.totalDuration - AnimationFixtures.durations(12).reduce(0, +)) < 1e-9)
        #expect(animation.frameDuration(at: 1) == 0.03 && animation.frameDuration(at: 12) == 0)
    }

    @Test("K2 a GIF frame decoded alone has the pixels of that frame in a whole decode, in any order", arguments: [false, true])
    func K2_gifFramesMatchWholeDecode(alpha: Bool) throws {
        let gif = try AnimationFixtures.encoded(frames: 24, alpha: alpha)
        let animation = try AnimatedImage(data: gif)
        let whole = try VipsCoder.shared.decode(gif)
        // Forwards, backwards and jumping: each read after the last starts the decoder again.
        let order = Array(0..<24) + [23, 5, 4, 17, 0, 22, 11, 11, 3]
        for index in order {
            let frame = try animation.frame(at: index)
            let expected = try whole.frame(at: index)
            #expect(frame.pixelSize == expected.pixelSize && frame.channels == expected.channels && !frame.isAnimated)
            #expect(try frame.pixels() == expected.pixels(), "frame \(index) differs from the whole decode")
        }
    }

    @Test("K2 a WebP frame decoded alone has the pixels of that frame in a whole decode")
    func K2_webpFramesMatchWholeDecode() throws {
        let webp = try AnimationFixtures.encoded(frames: 10, alpha: true, loopCount: 2, as: .webp)
        let animation = try AnimatedImage(data: webp)
        let whole = try VipsCoder.shared.decode(webp)
        #expect(animation.format == .webp && animation.frameCount == 10 && animation.loopCount == 2)
        #expect(animation.frameDurations == whole.frameDurations)
        for index in [0, 1, 2, 9, 3, 8] {
            #expect(try animation.frame(at: index).pixels() == whole.frame(at: index).pixels(), "frame \(index)")
        }
    }

    @Test("a still image is an animation of one frame, shown forever")
    func stillImage() throws {
        let png = try TestImages.encode(try TestImages.quadrants(width: 32, height: 24), as: .png)
        let animation = try AnimatedImage(data: png)
        #expect(animation.frameCount == 1 && animation.frameDurations.isEmpty && animation.loopCount == 0)
        #expect(try animation.frame(at: 0).pixels() == VipsCoder.shared.decode(png).pixels())
    }

    @Test("the limits are checked from the header: the first maxFrames frames are read, the pixels of one frame checked")
    func limits() throws {
        let gif = try AnimationFixtures.encoded(frames: 6, size: 20)
        let firstFive = try AnimatedImage(data: gif, limits: ImageLimits(maxFrames: 5))
        #expect(firstFive.frameCount == 5 && firstFive.frameDurations.count == 5)
        #expect(try firstFive.frame(at: 4).pixels() == AnimatedImage(data: gif).frame(at: 4).pixels())
        #expect(throws: ImageError.imageTooLarge(pixels: 400, limit: 399)) {
            try AnimatedImage(data: gif, limits: ImageLimits(maxPixels: 399))
        }
        #expect(throws: ImageError.imageTooLarge(pixels: 400, limit: 300)) {
            try AnimatedImage(data: gif, limits: ImageLimits(maxPixels: 1_000_000, maxFramePixels: 300))
        }
        // Six frames of 400 pixels pass a 1,000-pixel limit: one frame is decoded at a time.
        #expect(try AnimatedImage(data: gif, limits: ImageLimits(maxPixels: 1_000)).frameCount == 6)
    }

    @Test("bad input and bad indices throw errors that say what is wrong")
    func badInput() throws {
        #expect(throws: ImageError.badImageData("the data is empty (0 bytes)")) { try AnimatedImage(data: Data()) }
        do {
            _ = try AnimatedImage(data: Data("<html>nope</html>".utf8))
            Issue.record("HTML was read as an animation")
        } catch {
            guard case .badImageData(let reason) = error else { throw error }
            #expect(reason.contains("HTML"))
        }
        let gif = try AnimationFixtures.encoded(frames: 4, size: 16)
        #expect(throws: ImageError.self) { try AnimatedImage(data: gif.prefix(20)) }
        let animation = try AnimatedImage(data: gif)
        #expect(throws: ImageError.badImageData("frame 4 is outside 0..<4")) { try animation.frame(at: 4) }
        #expect(throws: ImageError.badImageData("frame -1 is outside 0..<4")) { try animation.frame(at: -1) }
    }

    @Test("a truncated GIF fails on the frames that are missing, and the frames before still decode")
    func truncatedFrames() throws {
        let gif = try AnimationFixtures.encoded(frames: 8, size: 16)
        let animation = try AnimatedImage(data: gif.prefix(gif.count * 2 / 3))
        #expect(animation.frameCount >= 1)
        #expect(throws: ImageError.self) {
            for index in 0..<8 { _ = try animation.frame(at: index) }
        }
        #expect(try animation.frame(at: 0).pixelSize == PixelSize(width: 16, height: 16))
    }

    @Test("the coders make an animation to play: VipsCoder and a manager lazily, other coders by a whole decode")
    func coders() throws {
        let gif = try AnimationFixtures.encoded(frames: 5, size: 16)
        #expect(try VipsCoder.shared.animatedImage(gif) is AnimatedImage)
        let anyCoder: any ImageCoder = VipsCoder.shared
        #expect(try anyCoder.animatedImage(gif, limits: .default, strictness: .error) is AnimatedImage)
        let manager = ImageCodersManager(coders: [VipsCoder.shared, QOICoder()])
        #expect(try manager.animatedImage(gif, limits: .default, strictness: .error) is AnimatedImage)
        let qoi = try QOICoder().encode(try TestImages.quadrants(width: 8, height: 8), options: ImageEncodeOptions(format: .qoi))
        let still = try manager.animatedImage(qoi)
        #expect(still is Image && still.frameCount == 1)
        #expect(try manager.animatedImage(gif, limits: ImageLimits(maxFrames: 4)).frameCount == 4)
    }
}
