import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Trim transformer")
struct TrimTransformerTests {
    typealias F = TransformFixtures

    /// A `width` × `height` canvas of `background` with a `colour` rectangle at `rect`
    /// (3 channels, or 4 with `alpha`: the background transparent, the rectangle opaque).
    static func framed(width: Int, height: Int, background: [Int], colour: [Int], rect: PixelRect, alpha: Bool = false) throws -> Image {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let inside = (rect.x..<rect.x + rect.width).contains(x) && (rect.y..<rect.y + rect.height).contains(y)
                pixels += (inside ? colour : background).map { UInt8($0) }
                if alpha { pixels.append(inside ? 255 : 0) }
            }
        }
        return try Image(pixels: pixels, width: width, height: height, channels: alpha ? 4 : 3)
    }

    @Test("trim cuts the border of the top-left pixel's colour down to the content")
    func trimsToContent() throws {
        let image = try Self.framed(width: 100, height: 80, background: F.white, colour: F.red, rect: PixelRect(x: 30, y: 25, width: 40, height: 20))
        let trimmed = try TrimTransformer().transform(image)
        #expect(trimmed.pixelSize == PixelSize(width: 40, height: 20))
        #expect(try pixel(trimmed, 0, 0, is: F.red, tolerance: 0))
        #expect(try pixel(trimmed, 39, 19, is: F.red, tolerance: 0))
    }

    @Test("a named colour that is not the border's trims nothing; the border's own trims it")
    func namedColour() throws {
        let image = try Self.framed(width: 60, height: 60, background: F.blue, colour: F.green, rect: PixelRect(x: 10, y: 20, width: 30, height: 10))
        #expect(try TrimTransformer(color: ImageColor(red: 0, green: 0, blue: 0)).transform(image).pixelSize == image.pixelSize)
        #expect(try TrimTransformer(color: ImageColor(red: 0, green: 0, blue: 255)).transform(image).pixelSize == PixelSize(width: 30, height: 10))
    }

    @Test("the threshold decides which colours count as background")
    func threshold() throws {
        // A light grey rectangle on white: 30 apart in each channel (about 52 in distance).
        let image = try Self.framed(width: 50, height: 50, background: F.white, colour: [225, 225, 225], rect: PixelRect(x: 5, y: 5, width: 20, height: 20))
        #expect(try TrimTransformer(threshold: 10).transform(image).pixelSize == PixelSize(width: 20, height: 20))
        #expect(try TrimTransformer(threshold: 100).transform(image).pixelSize == image.pixelSize, "everything is background: nothing is cut")
    }

    @Test("equal sides cut only the smaller margin on both sides")
    func equalSides() throws {
        // Margins: left 10, right 50, top 5, bottom 35.
        let image = try Self.framed(width: 100, height: 60, background: F.white, colour: F.red, rect: PixelRect(x: 10, y: 5, width: 40, height: 20))
        #expect(try TrimTransformer(equalHorizontal: true).transform(image).pixelSize == PixelSize(width: 80, height: 20))
        #expect(try TrimTransformer(equalVertical: true).transform(image).pixelSize == PixelSize(width: 40, height: 50))
        let both = try TrimTransformer(equalHorizontal: true, equalVertical: true).transform(image)
        #expect(both.pixelSize == PixelSize(width: 80, height: 50))
        #expect(try pixel(both, 0, 0, is: F.red, tolerance: 0), "the cut starts at the content's corner")
        // Mirrored: the larger margin on the left.
        let mirrored = try Self.framed(width: 100, height: 60, background: F.white, colour: F.red, rect: PixelRect(x: 50, y: 5, width: 40, height: 20))
        let cut = try TrimTransformer(equalHorizontal: true).transform(mirrored)
        #expect(cut.pixelSize == PixelSize(width: 80, height: 20))
        #expect(try pixel(cut, 79, 0, is: F.red, tolerance: 0))
    }

    @Test("a transparent border is trimmed, the alpha kept")
    func transparentBorder() throws {
        let image = try Self.framed(width: 50, height: 50, background: [0, 0, 0], colour: F.blue, rect: PixelRect(x: 20, y: 15, width: 10, height: 12), alpha: true)
        let trimmed = try TrimTransformer().transform(image)
        #expect(trimmed.pixelSize == PixelSize(width: 10, height: 12))
        #expect(trimmed.channels == 4)
        #expect(try pixel(trimmed, 5, 5, is: F.blue + [255], tolerance: 0))
    }

    @Test("an image all of background, and an animation, are left as they are; a negative threshold throws")
    func unchanged() throws {
        let flat = try F.solid(F.green, width: 20, height: 20)
        #expect(try TrimTransformer().transform(flat).pixelSize == flat.pixelSize)
        let animation = try F.animation(width: 20, height: 20)
        let result = try TrimTransformer().transform(animation)
        #expect(result.frameCount == 3 && result.pixelSize == animation.pixelSize)
        #expect(throwsInvalidTransform { try TrimTransformer(threshold: -1).transform(flat) })
        #expect(throwsInvalidTransform { try TrimTransformer(threshold: .nan).transform(flat) })
    }

    @Test("keys name threshold, colour and the equal sides")
    func keys() {
        #expect(TrimTransformer().key == "trim-10-auto")
        #expect(TrimTransformer(threshold: 5.5, color: ImageColor(red: 255, green: 0, blue: 0), equalHorizontal: true, equalVertical: true).key == "trim-5p5-ff0000-eqh-eqv")
    }
}
