import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("VipsCoder decoding")
struct VipsCoderDecodeTests {
    let coder = VipsCoder.shared

    @Test("K2 still formats decode with the right size and alpha", arguments: [
        ImageFormat.jpeg, .png, .gif, .webp, .avif, .heic, .tiff,
    ])
    func K2_decodesStillFormats(format: ImageFormat) throws {
        let opaque = try TestImages.quadrants(width: 64, height: 40)
        let decoded = try coder.decode(TestImages.encode(opaque, as: format), options: .init())
        #expect(decoded.pixelSize == PixelSize(width: 64, height: 40))
        #expect(decoded.format == format)
        #expect(decoded.frameCount == 1)
        #expect(close(try decoded.pixel(x: 8, y: 8), TestImages.topLeft, tolerance: 60))
        #expect(close(try decoded.pixel(x: 56, y: 32), TestImages.bottomRight, tolerance: 60))

        if [.png, .webp, .avif, .tiff, .gif].contains(format) {
            let transparent = try TestImages.halfTransparent(width: 32, height: 16)
            let withAlpha = try coder.decode(TestImages.encode(transparent, as: format), options: .init())
            #expect(withAlpha.hasAlpha, "\(format) keeps alpha")
            #expect(try withAlpha.pixel(x: 2, y: 2).last == 0)
            #expect(try withAlpha.pixel(x: 30, y: 2).last == 255)
        }
        if format == .jpeg {
            #expect(!decoded.hasAlpha)
        }
    }

    @Test("K2 animated GIF and WebP keep frames, durations and loop count", arguments: [ImageFormat.gif, .webp])
    func K2_decodesAnimations(format: ImageFormat) throws {
        let frames = try (0..<4).map { try TestImages.gradient(width: 30, height: 20, seed: $0 * 60) }
        let animation = try Image.animated(frames: frames, durations: [0.1, 0.2, 0.3, 0.5], loopCount: 3)
        let data = try TestImages.encode(animation, as: format)
        let decoded = try coder.decode(data, options: .init())
        #expect(decoded.isAnimated)
        #expect(decoded.frameCount == 4)
        #expect(decoded.pixelSize == PixelSize(width: 30, height: 20))
        #expect(decoded.frameDurations.map { ($0 * 100).rounded() } == [10, 20, 30, 50])
        #expect(decoded.loopCount == 3)
        #expect(decoded.memoryCost == 30 * 20 * decoded.channels * 4)

        let first = try coder.decode(data, options: .init(firstFrameOnly: true))
        #expect(first.frameCount == 1)
        #expect(!first.isAnimated)
        #expect(first.pixelSize == PixelSize(width: 30, height: 20))
    }

    @Test("K3 a thumbnail keeps the aspect ratio and shrinks on load")
    func K3_thumbnailShrinksOnLoad() throws {
        let data = try TestImages.encode(try TestImages.gradient(width: 4000, height: 3000), as: .jpeg)
        let thumbnail = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 256, height: 256)))
        #expect(thumbnail.pixelSize == PixelSize(width: 256, height: 192))
        #expect(thumbnail.sourcePixelSize == PixelSize(width: 4000, height: 3000))
        // JPEG DCT scaling decoded a quarter of each side (1/16 of the pixels), leaving a
        // factor of two for the final resample: the 12 MP image was never decoded whole.
        #expect(thumbnail.loadedPixelSize == PixelSize(width: 1000, height: 750))
        let tiny = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(tiny.loadedPixelSize == PixelSize(width: 500, height: 375))
        #expect(thumbnail.memoryCost == 256 * 192 * 3)
    }

    @Test("K3 a thumbnail can ignore the aspect ratio, and never enlarges")
    func K3_thumbnailWithoutAspectRatio() throws {
        let data = try TestImages.encode(try TestImages.gradient(width: 400, height: 300), as: .png)
        let forced = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 100, height: 100), preserveAspectRatio: false))
        #expect(forced.pixelSize == PixelSize(width: 100, height: 100))
        let larger = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 1000, height: 1000)))
        #expect(larger.pixelSize == PixelSize(width: 400, height: 300))
        let webp = try TestImages.encode(try TestImages.gradient(width: 800, height: 600), as: .webp)
        let small = try coder.decode(webp, options: .init(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(small.pixelSize == PixelSize(width: 100, height: 75))
        #expect(small.loadedPixelSize.width < 800)
    }

    @Test("a thumbnail ends at the fitted size, halves rounded up, whatever the format shrinks on load", arguments: [
        ImageFormat.jpeg, .png, .webp, .gif, .tiff,
    ])
    func thumbnailRoundsLikeResize(format: ImageFormat) throws {
        // 512 × 320 into 100 × 100: 100 × 62.5, which ResizeTransformer makes 100 × 63.
        let data = try TestImages.encode(try TestImages.gradient(width: 512, height: 320), as: format)
        let thumbnail = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(thumbnail.pixelSize == PixelSize(width: 100, height: 63))
        let resized = try ResizeTransformer(size: PixelSize(width: 100, height: 100)).transform(try coder.decode(data))
        #expect(resized.pixelSize == thumbnail.pixelSize)
        if format == .webp {
            // The WebP decoder scaled straight to it: no resample was left for the thumbnail.
            #expect(thumbnail.loadedPixelSize == PixelSize(width: 100, height: 63))
        }
    }

    @Test("K3 animated thumbnails keep every frame")
    func K3_animatedThumbnail() throws {
        let frames = try (0..<3).map { try TestImages.gradient(width: 200, height: 100, seed: $0 * 40) }
        let data = try TestImages.encode(try Image.animated(frames: frames, durations: [0.1, 0.1, 0.1]), as: .gif)
        let thumbnail = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 50, height: 50)))
        #expect(thumbnail.frameCount == 3)
        #expect(thumbnail.pixelSize == PixelSize(width: 50, height: 25))
    }

    @Test("K4 the scale-down limit bounds the decoded bytes")
    func K4_scaleDownLimit() throws {
        let data = try TestImages.encode(try TestImages.gradient(width: 3000, height: 2000), as: .jpeg)
        let limit = 1_000_000
        let image = try coder.decode(data, options: .init(scaleDownLimitBytes: limit))
        #expect(image.pixelSize.width * image.pixelSize.height * 4 <= limit)
        #expect(image.memoryCost <= limit)
        #expect(image.pixelSize.width > 400, "scaled down no more than needed")
        // Aspect ratio kept within rounding.
        #expect(abs(Double(image.pixelSize.width) / Double(image.pixelSize.height) - 1.5) < 0.02)
        // Under the limit already: full size.
        let small = try coder.decode(data, options: .init(scaleDownLimitBytes: 100_000_000))
        #expect(small.pixelSize == PixelSize(width: 3000, height: 2000))
    }

    @Test("grey sources stay one-channel 8-bit")
    func greyStaysGrey() throws {
        let grey = try Image(pixels: [UInt8](repeating: 90, count: 20 * 10), width: 20, height: 10, channels: 1)
        let decodedGrey = try coder.decode(TestImages.encode(grey, as: .png), options: .init())
        #expect(decodedGrey.channels == 1)
        #expect(try decodedGrey.pixel(x: 3, y: 3) == [90])
        let tiff = try coder.decode(TestImages.encode(grey, as: .tiff), options: .init())
        #expect(tiff.channels == 1)
    }
}
