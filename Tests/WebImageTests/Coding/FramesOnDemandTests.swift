import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTestSupport

/// Animations whose frames are made when an encoder reads them: what an encoded variant of
/// an animation is made of, so that it holds a few frames instead of all of them.
@Suite("Frames made on demand")
struct FramesOnDemandTests {
    static func onDemand(_ options: ImageDecodeOptions = ImageDecodeOptions()) -> ImageDecodeOptions {
        var options = options
        options.framesOnDemand = true
        return options
    }

    /// Decodes `data` and gives every frame's pixels.
    static func framePixels(_ data: Data) throws -> [Data] {
        let image = try VipsCoder.shared.decode(data)
        return try (0..<image.frameCount).map { try image.frame(at: $0).pixels() }
    }

    @Test(
        "K2 an animation decoded on demand, resized and encoded, gives the frames, timing and loop count of the whole decode's",
        arguments: [ImageFormat.gif, .webp]
    )
    func K2_onDemandMatchesWholeDecode(format: ImageFormat) throws {
        let source = try AnimationFixtures.encoded(frames: 40, size: 64, alpha: true, loopCount: 3, as: format)
        let resize = ResizeTransformer(size: PixelSize(width: 40, height: 30), mode: .fill)
        let encoding = ImageEncodeOptions(format: format, quality: 90)

        let whole = try VipsCoder.shared.decode(source)
        let lazy = try VipsCoder.shared.decode(source, options: Self.onDemand())
        #expect(!whole.makesFramesOnDemand && lazy.makesFramesOnDemand)
        #expect(lazy.frameCount == whole.frameCount && lazy.pixelSize == whole.pixelSize && lazy.channels == whole.channels)
        #expect(lazy.frameDurations == whole.frameDurations && lazy.loopCount == 3)
        #expect(try lazy.frame(at: 17).pixels() == whole.frame(at: 17).pixels())

        let expected = try VipsCoder.shared.encode(try resize.transform(whole), options: encoding)
        let resized = try resize.transform(lazy)
        #expect(resized.makesFramesOnDemand && resized.pixelSize == PixelSize(width: 40, height: 30))
        let made = try VipsCoder.shared.encode(resized, options: encoding)
        #expect(try Self.framePixels(made) == Self.framePixels(expected))
        let output = try VipsCoder.shared.decode(made)
        #expect(output.frameCount == 40 && output.frameDurations == whole.frameDurations && output.loopCount == 3)
    }

    @Test("K3 an animation decoded on demand into a thumbnail box gives the whole decode's size, timing and pixels, each frame thumbnailed on its own", arguments: [ImageFormat.gif, .webp])
    func K3_onDemandThumbnailMatchesWholeDecode(format: ImageFormat) throws {
        let source = try AnimationFixtures.encoded(frames: 24, size: 96, as: format)
        let box = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40))
        let whole = try VipsCoder.shared.decode(source, options: box)
        let lazy = try VipsCoder.shared.decode(source, options: Self.onDemand(box))
        #expect(lazy.makesFramesOnDemand && lazy.pixelSize == whole.pixelSize && lazy.frameCount == 24)
        #expect(lazy.loadedPixelSize == whole.loadedPixelSize && lazy.sourcePixelSize == whole.sourcePixelSize)
        #expect(lazy.frameDurations == whole.frameDurations)
        let made = try lazy.inMemory()
        #expect(!made.makesFramesOnDemand)
        for index in [0, 11, 23] {
            #expect(try made.frame(at: index).pixels() == whole.frame(at: index).pixels(), "frame \(index)")
        }
    }

    @Test("K2 one encode makes each frame once at every stage, and a second encode makes them again")
    func K2_eachFrameMadeOncePerEncode() throws {
        let frames = 40
        let gif = try AnimationFixtures.encoded(frames: frames, size: 48)
        let decoded = try VipsCoder.shared.decode(gif, options: Self.onDemand())
        let blurred = try BlurTransformer(sigma: 1).transform(decoded)
        let tinted = try TintTransformer(color: ImageColor(red: 200, green: 40, blue: 40, alpha: 128)).transform(blurred)
        let (decodeStrip, blurStrip, tintStrip) = (try #require(decoded.strip), try #require(blurred.strip), try #require(tinted.strip))
        // Each transform makes its input's first frame at once, for its size.
        #expect(decodeStrip.framesMade == 1 && blurStrip.framesMade == 1 && tintStrip.framesMade == 0)

        let first = try VipsCoder.shared.encode(tinted, options: ImageEncodeOptions(format: .gif))
        #expect(decodeStrip.framesMade == frames && blurStrip.framesMade == frames && tintStrip.framesMade == frames)
        let second = try VipsCoder.shared.encode(tinted, options: ImageEncodeOptions(format: .gif))
        #expect(first == second)
        // The transforms keep their first frame: the second read asks the decoder for the rest.
        #expect(tintStrip.framesMade == 2 * frames && decodeStrip.framesMade == 2 * frames - 1)
    }

    @Test("K2 a transform whose frames come out in different sizes fails with its own error when the frames are made")
    func K2_frameSizeMismatchFailsWithItsError() throws {
        let gif = try AnimationFixtures.encoded(frames: 12, size: 48)
        let decoded = try VipsCoder.shared.decode(gif, options: Self.onDemand())
        let shrinking = ShrinkingAfterFirstFrame()
        let broken = try shrinking.transform(decoded)
        #expect(throws: ImageError.self) { try VipsCoder.shared.encode(broken, options: ImageEncodeOptions(format: .gif)) }
        do {
            _ = try VipsCoder.shared.encode(broken, options: ImageEncodeOptions(format: .gif))
        } catch {
            guard case .invalidTransform(let reason) = error else {
                Issue.record("expected the transform's own error, got \(error)")
                return
            }
            #expect(reason.contains("came out in different sizes"))
        }
    }

    @Test("K2 a variant of a 1,000-frame GIF through the manager reserves a few frames of the budget, not 1,000, and its frames match the whole decode's (every 37th and the last)")
    func K2_thousandFrameVariantInBoundedMemory() async throws {
        let gif = try AnimationFixtures.thousandFrameGIF.get()
        let resize = ResizeTransformer(size: PixelSize(width: 32, height: 32), mode: .fit)
        let whole = try VipsCoder.shared.decode(gif)
        // Every 37th frame, resized on its own as the variant resizes each: resizing all
        // 1,000 of the whole decode costs seconds in a debug build.
        let sampled = Array(stride(from: 0, to: whole.frameCount, by: 37)) + [whole.frameCount - 1]
        let expected = try sampled.map { try resize.transform(try whole.frame(at: $0)).pixels() }
        let budget = MemoryBudget(bytes: 1 << 30)
        let limiter = WorkLimiter(workers: 2, queueSize: 4, memoryBudget: budget)
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/long.gif", .image(gif, contentType: "image/gif"))
            let cache = TestCaches.make { $0.shouldCacheImagesInMemory = false }
            let manager = ImageManager(cache: cache, loader: ImageLoaders([downloader]), variantWorkLimiter: limiter)
            // Lossless, so that every frame can be compared with the whole decode's.
            let encoding = VariantEncoding(format: .fixed(.webp), options: ImageEncodeOptions(format: .webp, lossless: true, webpEffort: 0))
            let result = try await manager.loadVariant(ImageRequest.variant(url: origin.url("/long.gif"), transformer: resize, encoding: encoding))
            let frameBytes = 64 * 64 * 4
            let wholeDecode = whole.frameCount * frameBytes
            // The decode's frames and bytes, then the resized frames and the encoder's output.
            let making = 2 * ImagePipeline.framesHeldOnDemand * 32 * 32 * 4
            #expect(budget.peakReservedBytes <= ImagePipeline.framesHeldOnDemand * frameBytes + 2 * gif.count + making)
            #expect(budget.peakReservedBytes < (wholeDecode + gif.count) / 5)
            let made = try VipsCoder.shared.decode(result.variant.data)
            #expect(made.frameCount == 1_000 && made.frameDurations == whole.frameDurations && made.loopCount == 2)
            #expect(try sampled.map { try made.frame(at: $0).pixels() } == expected)
        }
    }
}

/// Crops every frame after the first by one row: frames of different sizes.
private struct ShrinkingAfterFirstFrame: ImageTransformer {
    var key: String { "test-shrinking-after-first-frame" }

    func transform(_ image: Image) throws(ImageError) -> Image {
        let counter = FrameCounter()
        return try image.transformingFrames { frame throws(ImageError) -> VipsImageHandle in
            guard counter.next() > 0 else { return frame }
            return try VipsTransform.extract(frame, PixelRect(x: 0, y: 0, width: frame.width, height: frame.height - 1))
        }
    }
}

/// Counts the frames a transform has been given.
private final class FrameCounter: Sendable {
    private let count = Mutex(0)

    func next() -> Int {
        count.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
