import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Pixelate transformer")
struct PixelateTransformerTests {
    typealias F = TransformFixtures

    @Test("each block takes the mean of its pixels; the size is kept")
    func blocks() throws {
        // Grey columns 0, 100, 200, 50, two rows.
        let image = try Image(pixels: [0, 100, 200, 50, 0, 100, 200, 50], width: 4, height: 2, channels: 1)
        let result = try PixelateTransformer(size: 2).transform(image)
        #expect(result.pixelSize == image.pixelSize)
        #expect(try pixel(result, 0, 0, is: [50], tolerance: 1))
        #expect(try pixel(result, 1, 1, is: [50], tolerance: 1))
        #expect(try pixel(result, 2, 0, is: [125], tolerance: 1))
        #expect(try pixel(result, 3, 1, is: [125], tolerance: 1))
    }

    @Test("blocks cut by the edge keep the image size; size 1 changes nothing")
    func edges() throws {
        let image = try TestImages.gradient(width: 37, height: 23)
        let result = try PixelateTransformer(size: 8).transform(image)
        #expect(result.pixelSize == image.pixelSize)
        // Within a block every pixel is the same.
        #expect(try result.pixel(x: 8, y: 8) == result.pixel(x: 15, y: 15))
        #expect(try result.pixel(x: 32, y: 16) == result.pixel(x: 36, y: 22), "the cut block at the corner is one colour too")
        #expect(try PixelateTransformer(size: 1).transform(image).pixel(x: 3, y: 4) == image.pixel(x: 3, y: 4))
        let huge = try PixelateTransformer(size: 1000).transform(image)
        #expect(try huge.pixel(x: 0, y: 0) == huge.pixel(x: 36, y: 22), "a block larger than the image makes it one colour")
    }

    @Test("transparent pixels lend no colour; animations are pixelated frame by frame; size 0 throws")
    func alphaAndFrames() throws {
        let image = try Image(pixels: [255, 0, 0, 255, 0, 0, 255, 0], width: 2, height: 1, channels: 4)
        let result = try PixelateTransformer(size: 2).transform(image)
        #expect(try pixel(result, 1, 0, is: [255, 0, 0, 128], tolerance: 1))
        let animation = try PixelateTransformer(size: 5).transform(try F.animation(width: 10, height: 10))
        #expect(animation.frameCount == 3)
        #expect(try pixel(animation, 2, 2, frame: 0, is: F.red, tolerance: 1), "the red quadrant stays red")
        #expect(try pixel(animation, 7, 7, frame: 2, is: F.blue, tolerance: 1))
        #expect(throwsInvalidTransform { try PixelateTransformer(size: 0).transform(image) })
        #expect(PixelateTransformer(size: 8).key == "pixelate-8")
    }
}
