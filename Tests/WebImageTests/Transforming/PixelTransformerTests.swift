import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Tint, blur, sharpen, grayscale, background and round-corner transformers")
struct PixelTransformerTests {
    typealias F = TransformFixtures

    /// A 40 × 40 grey image, `dark` on the left half and `light` on the right.
    static func edge(dark: UInt8, light: UInt8) throws -> Image {
        var pixels = [UInt8](repeating: dark, count: 40 * 40)
        for y in 0..<40 { for x in 20..<40 { pixels[y * 40 + x] = light } }
        return try Image(pixels: pixels, width: 40, height: 40, channels: 1)
    }

    @Test("K8 tint blends the colour over the image by its alpha and keeps the image's alpha")
    func K8_tint() throws {
        let red = try F.solid(F.red, width: 8, height: 8)
        #expect(try pixel(try TintTransformer(color: ImageColor(red: 0, green: 0, blue: 255)).transform(red), 4, 4, is: F.blue, tolerance: 0))
        let half = try TintTransformer(color: ImageColor(red: 0, green: 0, blue: 255, alpha: 128)).transform(red)
        #expect(try pixel(half, 4, 4, is: [127, 0, 128], tolerance: 1))
        let shape = try TintTransformer(color: ImageColor(red: 255, green: 0, blue: 0)).transform(try TestImages.halfTransparent(width: 8, height: 8))
        #expect(try pixel(shape, 1, 1, is: [255, 0, 0, 0], tolerance: 0), "transparent stays transparent")
        #expect(try pixel(shape, 6, 1, is: [255, 0, 0, 255], tolerance: 0))
        let grey = try Image(pixels: [UInt8](repeating: 100, count: 16), width: 4, height: 4, channels: 1)
        let tinted = try TintTransformer(color: ImageColor(red: 0, green: 255, blue: 0, alpha: 51)).transform(grey)
        #expect(tinted.channels == 3)
        #expect(try pixel(tinted, 0, 0, is: [80, 131, 80], tolerance: 1))
        let animation = try TintTransformer(color: .white).transform(try F.animation(width: 10, height: 10))
        #expect(animation.frameCount == 3)
        #expect(try pixel(animation, 5, 5, frame: 2, is: F.white, tolerance: 0))
    }

    @Test("K8 blur smooths an edge and leaves flat areas alone")
    func K8_blur() throws {
        let result = try BlurTransformer(sigma: 3).transform(try Self.edge(dark: 0, light: 255))
        #expect(result.pixelSize == PixelSize(width: 40, height: 40))
        let left = try result.pixel(x: 18, y: 20)[0], right = try result.pixel(x: 21, y: 20)[0]
        #expect((20...235).contains(left) && (20...235).contains(right) && left < right, "\(left) \(right)")
        #expect(try pixel(result, 2, 20, is: [0], tolerance: 1))
        let flat = try BlurTransformer(sigma: 5).transform(try F.solid(F.green, width: 30, height: 30, alpha: 255))
        #expect(try pixel(flat, 15, 15, is: F.green + [255], tolerance: 1))
        // Transparent pixels lend no colour: the edge of a shape blurs in alpha only.
        let shape = try BlurTransformer(sigma: 2).transform(try TestImages.halfTransparent(width: 40, height: 40))
        let edgePixel = try shape.pixel(x: 19, y: 20)
        #expect((1...254).contains(edgePixel[3]) && close(Array(edgePixel.prefix(3)), [0, 255, 0], tolerance: 2), "\(edgePixel)")
        for bad in [0, -1, Double.nan, .infinity] {
            #expect(throwsInvalidTransform { try BlurTransformer(sigma: bad).transform(result) }, "\(bad)")
        }
    }

    @Test("K8 sharpen raises the contrast at an edge")
    func K8_sharpen() throws {
        let result = try SharpenTransformer(sigma: 1).transform(try Self.edge(dark: 64, light: 192))
        #expect(result.pixelSize == PixelSize(width: 40, height: 40))
        #expect(result.channels == 1)
        #expect(try result.pixel(x: 19, y: 20)[0] < 64)
        #expect(try result.pixel(x: 20, y: 20)[0] > 192)
        #expect(try pixel(result, 5, 20, is: [64], tolerance: 1))
        #expect(throwsInvalidTransform { try SharpenTransformer(sigma: 0).transform(result) })
    }

    @Test("K8 grayscale makes one grey channel by luminance and keeps alpha")
    func K8_grayscale() throws {
        let result = try GrayscaleTransformer().transform(try TestImages.quadrants(width: 40, height: 40))
        #expect(result.channels == 1)
        let (red, green, blue) = (try result.pixel(x: 5, y: 5)[0], try result.pixel(x: 35, y: 5)[0], try result.pixel(x: 5, y: 35)[0])
        #expect(green > red && red > blue, "\(red) \(green) \(blue)")
        #expect(try pixel(result, 35, 35, is: [255], tolerance: 1))
        let alpha = try GrayscaleTransformer().transform(try TestImages.halfTransparent(width: 10, height: 10))
        #expect(alpha.channels == 2)
        #expect(try alpha.pixel(x: 1, y: 1)[1] == 0)
        #expect(try alpha.pixel(x: 8, y: 1)[1] == 255)
    }

    @Test("K8 background flattens alpha onto an opaque colour, or composites under a translucent one")
    func K8_background() throws {
        let shape = try TestImages.halfTransparent(width: 10, height: 10)
        let flat = try BackgroundTransformer(color: .white).transform(shape)
        #expect(flat.channels == 3)
        #expect(try pixel(flat, 1, 1, is: F.white, tolerance: 0))
        #expect(try pixel(flat, 8, 1, is: F.green, tolerance: 0))
        let translucent = try BackgroundTransformer(color: ImageColor(red: 255, green: 0, blue: 0, alpha: 128)).transform(shape)
        #expect(translucent.channels == 4)
        #expect(try pixel(translucent, 1, 1, is: [255, 0, 0, 128], tolerance: 2))
        #expect(try pixel(translucent, 8, 1, is: [0, 255, 0, 255], tolerance: 2))
        let opaque = try TestImages.quadrants(width: 10, height: 10)
        #expect(try BackgroundTransformer(color: .black).transform(opaque).pixels() == opaque.pixels())
    }

    @Test("K8 round corners make the corners transparent, with an optional border")
    func K8_roundCorners() throws {
        let image = try TestImages.quadrants(width: 100, height: 100)
        let rounded = try RoundCornerTransformer(radius: 20).transform(image)
        #expect(rounded.pixelSize == image.pixelSize)
        #expect(rounded.channels == 4)
        for (x, y) in [(0, 0), (99, 0), (0, 99), (99, 99), (2, 3)] {
            #expect(try rounded.pixel(x: x, y: y)[3] == 0, "(\(x), \(y))")
        }
        #expect(try pixel(rounded, 25, 0, is: F.red + [255], tolerance: 0))
        #expect(try pixel(rounded, 50, 50, is: F.white + [255], tolerance: 0))
        // The arc is anti-aliased: some pixels along it are partly transparent.
        let corner = try (0..<20).flatMap { y in try (0..<20).map { x in try rounded.pixel(x: x, y: y)[3] } }
        #expect(corner.contains { (1...254).contains($0) })

        let framed = try RoundCornerTransformer(radius: 20, borderWidth: 5, borderColor: ImageColor(red: 0, green: 0, blue: 0)).transform(image)
        #expect(try pixel(framed, 30, 2, is: [0, 0, 0, 255], tolerance: 0))
        #expect(try pixel(framed, 30, 10, is: F.red + [255], tolerance: 0))
        #expect(try framed.pixel(x: 0, y: 0)[3] == 0)

        let grey = try Image(pixels: [UInt8](repeating: 128, count: 400), width: 20, height: 20, channels: 1)
        let greyRounded = try RoundCornerTransformer(radius: 1000).transform(grey)
        #expect(greyRounded.channels == 2, "a circle: the radius is capped at half the side")
        #expect(try greyRounded.pixel(x: 1, y: 1)[1] == 0)
        #expect(try greyRounded.pixel(x: 3, y: 3)[1] == 255, "inside the circle of radius 10")
        #expect(try pixel(greyRounded, 10, 10, is: [128, 255], tolerance: 0))
        let square = try RoundCornerTransformer(radius: 0).transform(image)
        #expect(try square.pixel(x: 0, y: 0)[3] == 255)

        let animation = try RoundCornerTransformer(radius: 5).transform(try F.animation(width: 20, height: 20))
        #expect(animation.frameCount == 3)
        #expect(try animation.pixel(x: 0, y: 0, frame: 2)[3] == 0)
        #expect(try pixel(animation, 10, 10, frame: 2, is: F.blue + [255], tolerance: 0))
        #expect(throwsInvalidTransform { try RoundCornerTransformer(radius: -1).transform(image) })
        #expect(throwsInvalidTransform { try RoundCornerTransformer(radius: 4, borderWidth: -2).transform(image) })
    }
}
