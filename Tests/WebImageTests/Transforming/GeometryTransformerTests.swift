import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Extend, flip and rotate transformers")
struct GeometryTransformerTests {
    typealias F = TransformFixtures

    @Test("K8 extend pads to at least the size, at the gravity, on the background")
    func K8_extend() throws {
        let image = try TestImages.quadrants(width: 40, height: 20)
        let centred = try ExtendTransformer(size: PixelSize(width: 60, height: 60)).transform(image)
        #expect(centred.pixelSize == PixelSize(width: 60, height: 60))
        #expect(centred.channels == 4, "a transparent background adds alpha")
        #expect(try pixel(centred, 0, 0, is: [0, 0, 0, 0], tolerance: 0))
        #expect(try pixel(centred, 10, 20, is: F.red + [255], tolerance: 0))
        #expect(try pixel(centred, 49, 39, is: F.white + [255], tolerance: 0))
        #expect(try pixel(centred, 50, 40, is: [0, 0, 0, 0], tolerance: 0))

        let corner = try ExtendTransformer(size: PixelSize(width: 50, height: 0), gravity: .southEast, background: .white).transform(image)
        #expect(corner.pixelSize == PixelSize(width: 50, height: 20))
        #expect(corner.channels == 3, "an opaque background adds no alpha")
        #expect(try pixel(corner, 5, 5, is: F.white, tolerance: 0))
        #expect(try pixel(corner, 10, 0, is: F.red, tolerance: 0))

        let focus = try ExtendTransformer(size: PixelSize(width: 40, height: 40), gravity: .focusPoint(x: 0.5, y: 1), background: .black)
            .transform(image)
        #expect(try pixel(focus, 0, 19, is: [0, 0, 0], tolerance: 0))
        #expect(try pixel(focus, 0, 20, is: F.red, tolerance: 0))

        #expect(try ExtendTransformer(size: PixelSize(width: 10, height: 10)).transform(image).pixelSize == image.pixelSize)
        let grey = try Image(pixels: [UInt8](repeating: 90, count: 16), width: 4, height: 4, channels: 1)
        let onRed = try ExtendTransformer(size: PixelSize(width: 8, height: 4), gravity: .west, background: ImageColor(red: 255, green: 0, blue: 0))
            .transform(grey)
        #expect(onRed.channels == 3)
        #expect(try pixel(onRed, 0, 0, is: [90, 90, 90], tolerance: 0))
        #expect(try pixel(onRed, 7, 3, is: F.red, tolerance: 0))
        #expect(throwsInvalidTransform { try ExtendTransformer(size: PixelSize(width: -1, height: 0)).transform(image) })
        #expect(throwsInvalidTransform { try ExtendTransformer(size: PixelSize(width: 1_000_000, height: 1_000_000)).transform(image) })
    }

    @Test("K8 flip mirrors horizontally, vertically or both")
    func K8_flip() throws {
        let image = try TestImages.quadrants(width: 40, height: 20)
        let cases: [(Bool, Bool, [Int], [Int])] = [
            (true, false, F.green, F.blue), (false, true, F.blue, F.green), (true, true, F.white, F.red), (false, false, F.red, F.white),
        ]
        for (horizontal, vertical, topLeft, bottomRight) in cases {
            let result = try FlipTransformer(horizontal: horizontal, vertical: vertical).transform(image)
            #expect(result.pixelSize == image.pixelSize)
            #expect(try pixel(result, 5, 5, is: topLeft, tolerance: 0), "h \(horizontal) v \(vertical)")
            #expect(try pixel(result, 35, 15, is: bottomRight, tolerance: 0), "h \(horizontal) v \(vertical)")
        }
        let animation = try F.animation(width: 40, height: 20)
        let flipped = try FlipTransformer(horizontal: false, vertical: true).transform(animation)
        #expect(flipped.frameCount == 3)
        #expect(flipped.frameDurations == animation.frameDurations)
        #expect(try pixel(flipped, 5, 5, frame: 0, is: F.blue, tolerance: 0), "each frame flips on its own")
        #expect(try pixel(flipped, 5, 5, frame: 1, is: F.red, tolerance: 0))
    }

    @Test("K8 right-angle rotations are lossless clockwise turns")
    func K8_rotateRightAngles() throws {
        let image = try TestImages.quadrants(width: 40, height: 20)
        let quarter = try RotateTransformer(degrees: 90).transform(image)
        #expect(quarter.pixelSize == PixelSize(width: 20, height: 40))
        #expect(try pixel(quarter, 5, 5, is: F.blue, tolerance: 0))
        #expect(try pixel(quarter, 15, 5, is: F.red, tolerance: 0))
        #expect(try pixel(quarter, 5, 35, is: F.white, tolerance: 0))
        #expect(try pixel(quarter, 15, 35, is: F.green, tolerance: 0))
        let back = try RotateTransformer(degrees: -90).transform(image)
        #expect(back.pixelSize == PixelSize(width: 20, height: 40))
        #expect(try pixel(back, 5, 5, is: F.green, tolerance: 0))
        let half = try RotateTransformer(degrees: 540).transform(image)
        #expect(half.pixelSize == image.pixelSize)
        #expect(try pixel(half, 5, 5, is: F.white, tolerance: 0))
        #expect(try RotateTransformer(degrees: 360).transform(image).pixelSize == image.pixelSize)
        #expect(RotateTransformer(degrees: -90).key == "rotate-270")
        #expect(RotateTransformer(degrees: 270, fitSize: false, background: .white).key == "rotate-270")

        let animation = try F.animation(width: 40, height: 20)
        let turned = try RotateTransformer(degrees: 90).transform(animation)
        #expect(turned.frameCount == 3)
        #expect(turned.pixelSize == PixelSize(width: 20, height: 40))
        #expect(try pixel(turned, 5, 5, frame: 0, is: F.blue, tolerance: 0))
        #expect(try pixel(turned, 5, 35, frame: 2, is: F.blue, tolerance: 0))
    }

    @Test("K8 other angles grow the canvas (or keep the size) and fill the corners with the background")
    func K8_rotateAnyAngle() throws {
        let image = try F.solid(F.red, width: 40, height: 20)
        let grown = try RotateTransformer(degrees: 45).transform(image)
        // 40·cos 45° + 20·sin 45° ≈ 42.4 each way.
        #expect((42...44).contains(grown.pixelSize.width) && (42...44).contains(grown.pixelSize.height), "\(grown.pixelSize)")
        #expect(grown.channels == 4)
        #expect(try pixel(grown, 1, 1, is: [0, 0, 0, 0], tolerance: 2))
        #expect(try pixel(grown, grown.pixelSize.width / 2, grown.pixelSize.height / 2, is: F.red + [255], tolerance: 2))

        let kept = try RotateTransformer(degrees: 30, fitSize: false, background: .white).transform(image)
        #expect(kept.pixelSize == image.pixelSize)
        #expect(kept.channels == 3)
        #expect(try pixel(kept, 0, 0, is: F.white, tolerance: 2))
        #expect(try pixel(kept, 20, 10, is: F.red, tolerance: 2))
        #expect(throwsInvalidTransform { try RotateTransformer(degrees: .nan).transform(image) })
        #expect(throwsInvalidTransform { try RotateTransformer(degrees: .infinity).transform(image) })
    }
}
