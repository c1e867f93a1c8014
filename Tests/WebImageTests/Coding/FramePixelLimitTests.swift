import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Limits: pixels a frame")
struct FramePixelLimitTests {
    @Test("with a frame limit an animation is checked frame by frame, a still image still against all pixels")
    func framePixels() throws {
        // Three 20 × 20 frames: 1,200 pixels in all, 400 a frame.
        let gif = try TestImages.encode(try TransformFixtures.animation(width: 20, height: 20), as: .gif)
        let coder = VipsCoder.shared
        #expect(throws: ImageError.self) { try coder.inspect(gif, limits: ImageLimits(maxPixels: 1_000)) }
        #expect(try coder.inspect(gif, limits: ImageLimits(maxPixels: 1_000, maxFramePixels: 400)).frameCount == 3)
        do {
            _ = try coder.inspect(gif, limits: ImageLimits(maxPixels: 1_000_000, maxFramePixels: 399))
            Issue.record("a 400-pixel frame passed a 399-pixel frame limit")
        } catch {
            guard case .imageTooLarge(let pixels, let limit) = error else { throw error }
            #expect(pixels == 400 && limit == 399)
        }
        let still = try TestImages.encode(try TestImages.quadrants(width: 40, height: 40), as: .png)
        #expect(throws: ImageError.self) { try coder.inspect(still, limits: ImageLimits(maxPixels: 1_000, maxFramePixels: 10_000)) }
    }

    @Test("asking for an embedded thumbnail of an image without one decodes the main image")
    func embeddedThumbnailFallsBack() throws {
        let avif = try TestImages.encode(try TestImages.quadrants(width: 64, height: 48), as: .avif)
        var options = ImageDecodeOptions()
        options.preferEmbeddedThumbnail = true
        let image = try VipsCoder.shared.decode(avif, options: options)
        #expect(image.pixelSize == PixelSize(width: 64, height: 48))
    }
}
