import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// `ImageCoder.decode(_:planning:)`: the plan sees the header's facts, the decode follows
/// the plan, and the limits checked are the planned ones — on libvips (one header read)
/// and through the protocol's default (inspect, then decode).
@Suite("Planned decode")
struct PlannedDecodeTests {
    static let coders: [any ImageCoder] = [VipsCoder.shared, ImageCodersManager(coders: [VipsCoder.shared]), InspectThenDecode()]

    /// A coder that keeps the protocol's default `decode(_:planning:)`.
    struct InspectThenDecode: ImageCoder {
        func canDecode(_ data: Data) -> Bool { VipsCoder.shared.canDecode(data) }
        func inspect(_ data: Data, limits: ImageLimits) throws(ImageError) -> ImageInfo { try VipsCoder.shared.inspect(data, limits: limits) }
        func decode(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image { try VipsCoder.shared.decode(data, options: options) }
        func decodePartial(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image? { nil }
        func canEncode(_ format: ImageFormat) -> Bool { false }
        func encode(_ image: Image, options: ImageEncodeOptions) throws(ImageError) -> Data { throw .encodingFailed("not a writer") }
    }

    @Test("the plan sees the upright size and orientation; a size planned from it is the size decoded", arguments: 0..<3)
    func planFromHeader(coderIndex: Int) throws {
        let coder = Self.coders[coderIndex]
        // Stored 80×40 with orientation 6: shown 40×80.
        let data = try TestImages.jpeg(upright: TestImages.quadrants(width: 40, height: 80), orientation: 6)
        var seen: ImageInfo?
        let (info, image) = try coder.decode(data) { info throws(ImageError) -> ImageDecodeOptions in
            seen = info
            var options = ImageDecodeOptions()
            options.thumbnailPixelSize = PixelSize(width: info.uprightPixelSize.width / 4, height: info.uprightPixelSize.height / 4)
            return options
        }
        #expect(seen == info)
        #expect(info.format == .jpeg)
        #expect(info.orientation == 6)
        #expect(info.pixelSize == PixelSize(width: 80, height: 40))
        #expect(info.uprightPixelSize == PixelSize(width: 40, height: 80))
        #expect(image.pixelSize == PixelSize(width: 10, height: 20))
        #expect(close(try image.pixel(x: 2, y: 2), TestImages.topLeft, tolerance: 70))
    }

    @Test("the planned limits are the ones applied: an animation longer than maxFrames decodes its first frames", arguments: 0..<3)
    func plannedLimits(coderIndex: Int) throws {
        let coder = Self.coders[coderIndex]
        let frames = try (0..<4).map { try TestImages.gradient(width: 30, height: 20, seed: $0 * 60) }
        let data = try TestImages.encode(try Image.animated(frames: frames, durations: [0.1, 0.1, 0.1, 0.1], loopCount: 0), as: .gif)
        let limits = ImageLimits(maxPixels: 10_000, maxFrames: 3)

        let (_, firstThree) = try coder.decode(data) { _ throws(ImageError) in ImageDecodeOptions(limits: limits) }
        #expect(firstThree.frameCount == 3 && firstThree.frameDurations.count == 3)
        let (info, first) = try coder.decode(data) { info throws(ImageError) in
            ImageDecodeOptions(firstFrameOnly: info.frameCount > limits.maxFrames, limits: limits)
        }
        #expect(info.frameCount == 4)
        #expect(first.frameCount == 1)
        #expect(first.pixelSize == PixelSize(width: 30, height: 20))
    }

    @Test("an error thrown by the plan is the decode's error, and nothing is decoded")
    func planError() throws {
        let data = try TestImages.encode(TestImages.quadrants(width: 16, height: 16), as: .png)
        #expect(throws: ImageError.imageTooLarge(pixels: 256, limit: 1)) {
            try VipsCoder.shared.decode(data) { info throws(ImageError) -> ImageDecodeOptions in
                throw .imageTooLarge(pixels: info.pixelSize.width * info.pixelSize.height, limit: 1)
            }
        }
    }
}
