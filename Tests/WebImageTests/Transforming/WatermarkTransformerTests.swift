import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Watermark transformer")
struct WatermarkTransformerTests {
    typealias F = TransformFixtures

    static func mark() throws -> Image { try F.solid(F.red, width: 10, height: 10) }

    @Test("a mark at a gravity, moved inwards by the offsets")
    func anchored() throws {
        let base = try F.solid(F.white, width: 100, height: 80)
        let corner = try WatermarkTransformer(mark: try Self.mark(), markKey: "m", placement: .anchored(.southEast, xOffset: 5, yOffset: 5)).transform(base)
        #expect(corner.pixelSize == base.pixelSize && corner.channels == 3)
        #expect(try pixel(corner, 85, 65, is: F.red, tolerance: 0))
        #expect(try pixel(corner, 94, 74, is: F.red, tolerance: 0))
        #expect(try pixel(corner, 95, 75, is: F.white, tolerance: 0))
        #expect(try pixel(corner, 84, 64, is: F.white, tolerance: 0))
        // Centred: (100 − 10 + 1) / 2 = 45.5 rounds to 46, (80 − 10 + 1) / 2 = 35.5 to 36.
        let centre = try WatermarkTransformer(mark: try Self.mark(), markKey: "m").transform(base)
        #expect(try pixel(centre, 46, 36, is: F.red, tolerance: 0))
        #expect(try pixel(centre, 45, 36, is: F.white, tolerance: 0))
        #expect(try pixel(centre, 55, 45, is: F.red, tolerance: 0))
        let west = try WatermarkTransformer(mark: try Self.mark(), markKey: "m", placement: .anchored(.northWest, xOffset: -5, yOffset: 0)).transform(base)
        #expect(try pixel(west, 0, 0, is: F.red, tolerance: 0), "a negative offset hangs the mark over the edge")
        #expect(try pixel(west, 5, 0, is: F.white, tolerance: 0))
    }

    @Test("opacity blends the mark; scale fits it to a fraction of the image")
    func opacityAndScale() throws {
        let base = try F.solid(F.white, width: 100, height: 80)
        let faint = try WatermarkTransformer(mark: try Self.mark(), markKey: "m", opacity: 0.5).transform(base)
        #expect(try pixel(faint, 50, 40, is: [255, 128, 128], tolerance: 2))
        // Fitted into 50 × 40: 40 × 40, centred at (30, 20).
        let scaled = try WatermarkTransformer(mark: try Self.mark(), markKey: "m", scale: 0.5).transform(base)
        #expect(try pixel(scaled, 31, 21, is: F.red, tolerance: 0))
        #expect(try pixel(scaled, 68, 58, is: F.red, tolerance: 0))
        #expect(try pixel(scaled, 28, 40, is: F.white, tolerance: 0))
        #expect(try WatermarkTransformer(mark: try Self.mark(), markKey: "m", opacity: 0).transform(base).pixel(x: 50, y: 40) == base.pixel(x: 50, y: 40))
    }

    @Test("a scale above 1 makes the mark larger than the image: the part over the image is shown, placed as the gravity says")
    func scaleAboveOne() throws {
        let base = try F.solid(F.white, width: 100, height: 80)
        // 20 × 10, red on the left, blue on the right.
        var pixels = [UInt8]()
        for _ in 0..<10 { for x in 0..<20 { pixels += x < 10 ? [255, 0, 0] : [0, 0, 255] } }
        let halves = try Image(pixels: pixels, width: 20, height: 10, channels: 3)
        // Fitted into 200 × 160: 200 × 100, centred at (−50, −10); its halves meet at x = 50.
        let covered = try WatermarkTransformer(mark: halves, markKey: "h", scale: 2).transform(base)
        #expect(covered.pixelSize == base.pixelSize)
        #expect(try pixel(covered, 25, 40, is: [255, 0, 0], tolerance: 2))
        #expect(try pixel(covered, 75, 40, is: [0, 0, 255], tolerance: 2))
        #expect(try pixel(covered, 5, 0, is: [255, 0, 0], tolerance: 2) && pixel(covered, 95, 79, is: [0, 0, 255], tolerance: 2))
        // At the north-west corner the mark's top-left quarter shows: red only.
        let corner = try WatermarkTransformer(mark: halves, markKey: "h", placement: .anchored(.northWest, xOffset: 0, yOffset: 0), scale: 2).transform(base)
        #expect(try pixel(corner, 95, 75, is: [255, 0, 0], tolerance: 2))
    }

    @Test("a scale of 50 costs the image's size, not the mark's (made whole it would be 50,000 pixels a side)")
    func scaleFarAboveOne() throws {
        let base = try F.solid(F.white, width: 1000, height: 800)
        let covered = try WatermarkTransformer(mark: try Self.mark(), markKey: "m", scale: 50).transform(base)
        #expect(covered.pixelSize == base.pixelSize)
        #expect(try pixel(covered, 0, 0, is: F.red, tolerance: 0) && pixel(covered, 999, 799, is: F.red, tolerance: 0))
        let tiled = try WatermarkTransformer(mark: try Self.mark(), markKey: "m", placement: .tiled(xSpacing: 0, ySpacing: 0), scale: 50).transform(base)
        #expect(try pixel(tiled, 500, 400, is: F.red, tolerance: 0))
    }

    @Test("tiled: the mark repeats with the spacing, centred on the image")
    func tiled() throws {
        let base = try F.solid(F.white, width: 100, height: 80)
        // Tiles of 20 × 20 (mark at 5…14 in each); 5 × 5 of them, cut to 100 × 80 around the middle.
        let result = try WatermarkTransformer(mark: try Self.mark(), markKey: "m", placement: .tiled(xSpacing: 10, ySpacing: 10)).transform(base)
        #expect(result.pixelSize == base.pixelSize)
        for (x, y) in [(10, 0), (10, 20), (30, 20), (90, 60)] {
            #expect(try pixel(result, x, y, is: F.red, tolerance: 0), "(\(x), \(y))")
        }
        for (x, y) in [(20, 20), (10, 10), (0, 0)] {
            #expect(try pixel(result, x, y, is: F.white, tolerance: 0), "(\(x), \(y))")
        }
    }

    @Test("alpha is kept, a grey image turns colour, animations get the mark on every frame")
    func channelsAndFrames() throws {
        let transparent = try F.solid(F.white, width: 40, height: 40, alpha: 0)
        let marked = try WatermarkTransformer(mark: try Self.mark(), markKey: "m").transform(transparent)
        #expect(marked.channels == 4)
        #expect(try pixel(marked, 20, 20, is: F.red + [255], tolerance: 0))
        #expect(try marked.pixel(x: 2, y: 2)[3] == 0, "outside the mark it stays transparent")
        let grey = try Image(pixels: [UInt8](repeating: 90, count: 400), width: 20, height: 20, channels: 1)
        let colour = try WatermarkTransformer(mark: try Self.mark(), markKey: "m").transform(grey)
        #expect(colour.channels == 3)
        #expect(try pixel(colour, 10, 10, is: F.red, tolerance: 0))
        #expect(try pixel(colour, 1, 1, is: [90, 90, 90], tolerance: 0))
        let animation = try WatermarkTransformer(mark: try Self.mark(), markKey: "m", placement: .anchored(.northWest, xOffset: 0, yOffset: 0))
            .transform(try F.animation(width: 20, height: 20))
        #expect(animation.frameCount == 3)
        for frame in 0..<3 { #expect(try pixel(animation, 2, 2, frame: frame, is: F.red, tolerance: 0)) }
        #expect(try pixel(animation, 15, 15, frame: 2, is: F.blue, tolerance: 0))
    }

    @Test("keys name the mark, opacity, placement and scale; bad values throw")
    func keys() throws {
        let mark = try Self.mark()
        #expect(WatermarkTransformer(mark: mark, markKey: "ab/c d", opacity: 0.5, placement: .anchored(.southEast, xOffset: 10, yOffset: -2), scale: 0.2).key
            == "watermark-abcd-0p5-soea-10-m2-s0p2")
        #expect(WatermarkTransformer(mark: mark, markKey: "x", placement: .tiled(xSpacing: 4, ySpacing: 0)).key == "watermark-x-1-tile-4-0")
        let base = try F.solid(F.white, width: 10, height: 10)
        #expect(throwsInvalidTransform { try WatermarkTransformer(mark: mark, markKey: "m", opacity: 2).transform(base) })
        #expect(throwsInvalidTransform { try WatermarkTransformer(mark: mark, markKey: "m", scale: -1).transform(base) })
    }
}
