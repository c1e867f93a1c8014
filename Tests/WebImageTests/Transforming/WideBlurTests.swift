import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// A blur wider than `BlurTransformer.directSigmaLimit` is made at a smaller scale: it
/// looks as the direct blur does, keeps the frame's size, and takes any sigma.
@Suite("Wide blur")
struct WideBlurTests {
    /// `image` blurred by `sigma` with the given direct limit, as an image of its format.
    static func blurred(_ image: Image, sigma: Double, directLimit: Double) throws -> Image {
        let handle = try BlurTransformer.blurred(image.handle, sigma: sigma, directLimit: directLimit)
        return Image(
            handle: handle, format: image.format, frameCount: 1, frameDurations: [], loopCount: 0, sourceOrientation: 1,
            loadedPixelSize: image.pixelSize, sourcePixelSize: image.pixelSize
        )
    }

    @Test("at a smaller scale the blur looks as the direct one (SSIM ≥ 0.98), at the frame's own size", arguments: [
        (24.0, 300, 200), (40.0, 301, 199), (90.0, 160, 97),
    ])
    func likeTheDirectBlur(_ sigma: Double, _ width: Int, _ height: Int) throws {
        let photo = try TestImages.gradient(width: width, height: height)
        let direct = try Self.blurred(photo, sigma: sigma, directLimit: .infinity)
        let wide = try Self.blurred(photo, sigma: sigma, directLimit: BlurTransformer.directSigmaLimit)
        #expect(wide.pixelSize == photo.pixelSize)
        let similarity = try ImageSimilarity.ssim(direct, wide)
        #expect(similarity >= 0.98, "sigma \(sigma): SSIM \(similarity)")
    }

    @Test("a sigma far past the frame's size gives a frame of its size, its mean colour")
    func sigmaPastTheFrame() throws {
        let quadrants = try TestImages.quadrants(width: 64, height: 48)
        let result = try BlurTransformer(sigma: 5000).transform(quadrants)
        #expect(result.pixelSize == PixelSize(width: 64, height: 48))
        let corner = try result.pixel(x: 0, y: 0), centre = try result.pixel(x: 32, y: 24)
        #expect(zip(corner.prefix(3), centre.prefix(3)).allSatisfy { abs(Int($0) - Int($1)) <= 8 }, "\(corner) \(centre)")
    }
}
