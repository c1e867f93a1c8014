import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Crop transformer")
struct CropTransformerTests {
    typealias F = TransformFixtures

    @Test("K8 a rectangle is cut out, clamped to the image")
    func K8_rect() throws {
        let image = try TestImages.quadrants(width: 200, height: 100)
        let topRight = try CropTransformer(rect: PixelRect(x: 100, y: 0, width: 100, height: 50)).transform(image)
        #expect(topRight.pixelSize == PixelSize(width: 100, height: 50))
        #expect(try pixel(topRight, 0, 0, is: F.green, tolerance: 0))
        #expect(try pixel(topRight, 99, 49, is: F.green, tolerance: 0))
        let overhanging = try CropTransformer(rect: PixelRect(x: 150, y: 50, width: 100, height: 100)).transform(image)
        #expect(overhanging.pixelSize == PixelSize(width: 50, height: 50))
        #expect(try pixel(overhanging, 25, 25, is: F.white, tolerance: 0))
        let before = try CropTransformer(rect: PixelRect(x: -20, y: -20, width: 60, height: 40)).transform(image)
        #expect(before.pixelSize == PixelSize(width: 40, height: 20))
        #expect(try pixel(before, 39, 19, is: F.red, tolerance: 0))
        let whole = try CropTransformer(rect: PixelRect(x: 0, y: 0, width: 500, height: 500)).transform(image)
        #expect(whole.pixelSize == image.pixelSize)
    }

    @Test("K8 a size is cut at the gravity", arguments: [
        (Gravity.northWest, TransformFixtures.red), (.northEast, TransformFixtures.green),
        (.southWest, TransformFixtures.blue), (.southEast, TransformFixtures.white),
        (.focusPoint(x: 0, y: 1), TransformFixtures.blue), (.focusPoint(x: 0.9, y: 0.1), TransformFixtures.green),
    ])
    func K8_sizeAtGravity(gravity: Gravity, colour: [Int]) throws {
        let image = try TestImages.quadrants(width: 200, height: 100)
        let result = try CropTransformer(size: PixelSize(width: 100, height: 50), gravity: gravity).transform(image)
        #expect(result.pixelSize == PixelSize(width: 100, height: 50))
        #expect(try pixel(result, 0, 0, is: colour, tolerance: 0))
        #expect(try pixel(result, 99, 49, is: colour, tolerance: 0))
    }

    @Test("K8 compass edges and the centre; 0 keeps the full extent; larger sizes clamp")
    func K8_sizeEdges() throws {
        let image = try TestImages.quadrants(width: 200, height: 100)
        let centre = try CropTransformer(size: PixelSize(width: 100, height: 50)).transform(image)
        #expect(try pixel(centre, 0, 0, is: F.red, tolerance: 0))
        #expect(try pixel(centre, 99, 49, is: F.white, tolerance: 0))
        let north = try CropTransformer(size: PixelSize(width: 0, height: 50), gravity: .north).transform(image)
        #expect(north.pixelSize == PixelSize(width: 200, height: 50))
        #expect(try pixel(north, 199, 49, is: F.green, tolerance: 0))
        let south = try CropTransformer(size: PixelSize(width: 100, height: 0), gravity: .south).transform(image)
        #expect(south.pixelSize == PixelSize(width: 100, height: 100))
        #expect(try pixel(south, 0, 99, is: F.blue, tolerance: 0))
        let east = try CropTransformer(size: PixelSize(width: 50, height: 20), gravity: .east).transform(image)
        #expect(try pixel(east, 49, 0, is: F.green, tolerance: 0))
        #expect(try pixel(east, 49, 19, is: F.white, tolerance: 0))
        let west = try CropTransformer(size: PixelSize(width: 50, height: 20), gravity: .west).transform(image)
        #expect(try pixel(west, 0, 0, is: F.red, tolerance: 0))
        let clamped = try CropTransformer(size: PixelSize(width: 500, height: 60), gravity: .south).transform(image)
        #expect(clamped.pixelSize == PixelSize(width: 200, height: 60))
        let smart = try CropTransformer(size: PixelSize(width: 50, height: 50), gravity: .smart).transform(image)
        #expect(smart.pixelSize == PixelSize(width: 50, height: 50))
    }

    @Test("K8 an animation is cut frame by frame at one place")
    func K8_animated() throws {
        let animation = try F.animation(width: 40, height: 20)
        let result = try CropTransformer(size: PixelSize(width: 20, height: 10), gravity: .southEast).transform(animation)
        #expect(result.frameCount == 3)
        #expect(result.pixelSize == PixelSize(width: 20, height: 10))
        #expect(result.frameDurations == [0.1, 0.2, 0.3])
        #expect(result.loopCount == 2)
        #expect(try pixel(result, 5, 5, frame: 0, is: F.white, tolerance: 0))
        #expect(try pixel(result, 5, 5, frame: 1, is: F.red, tolerance: 0))
        #expect(try pixel(result, 5, 5, frame: 2, is: F.blue, tolerance: 0))
        let smart = try CropTransformer(size: PixelSize(width: 20, height: 10), gravity: .smart).transform(animation)
        #expect(smart.frameCount == 3)
        #expect(try pixel(smart, 0, 0, frame: 0, is: F.red, tolerance: 0), "an animation's smart crop is centred")
    }

    @Test("K8 invalid crops throw invalidTransform")
    func K8_invalid() throws {
        let image = try TestImages.quadrants(width: 40, height: 40)
        #expect(throwsInvalidTransform { try CropTransformer(rect: PixelRect(x: 40, y: 0, width: 10, height: 10)).transform(image) })
        #expect(throwsInvalidTransform { try CropTransformer(rect: PixelRect(x: -20, y: 0, width: 10, height: 10)).transform(image) })
        #expect(throwsInvalidTransform { try CropTransformer(rect: PixelRect(x: 0, y: 0, width: 0, height: 10)).transform(image) })
        #expect(throwsInvalidTransform { try CropTransformer(rect: PixelRect(x: Int.max, y: 0, width: Int.max, height: 1)).transform(image) })
        #expect(throwsInvalidTransform { try CropTransformer(size: PixelSize(width: -1, height: 10)).transform(image) })
        #expect(throwsInvalidTransform { try CropTransformer(size: PixelSize(width: 10, height: 10), gravity: .focusPoint(x: 0, y: -0.1)).transform(image) })
    }
}
