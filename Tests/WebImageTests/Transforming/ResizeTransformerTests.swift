import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Resize transformer")
struct ResizeTransformerTests {
    typealias F = TransformFixtures

    @Test("K8 fit keeps the aspect ratio inside the box")
    func K8_fit() throws {
        let image = try TestImages.quadrants(width: 800, height: 400)
        let result = try ResizeTransformer(size: PixelSize(width: 400, height: 300)).transform(image)
        #expect(result.pixelSize == PixelSize(width: 400, height: 200))
        #expect(try pixel(result, 100, 50, is: F.red))
        #expect(try pixel(result, 300, 50, is: F.green))
        #expect(try pixel(result, 100, 150, is: F.blue))
        #expect(try pixel(result, 300, 150, is: F.white))
        #expect(result.channels == 3)
        #expect(!result.isAnimated)
    }

    @Test("K8 a width or height of 0 is derived from the other; both 0 keep the size")
    func K8_zeroDimension() throws {
        let image = try TestImages.quadrants(width: 800, height: 400)
        for mode in ResizeMode.allCases {
            let byWidth = try ResizeTransformer(size: PixelSize(width: 200, height: 0), mode: mode).transform(image)
            #expect(byWidth.pixelSize == PixelSize(width: 200, height: 100), "\(mode)")
            let byHeight = try ResizeTransformer(size: PixelSize(width: 0, height: 100), mode: mode).transform(image)
            #expect(byHeight.pixelSize == PixelSize(width: 200, height: 100), "\(mode)")
            #expect(try pixel(byHeight, 150, 75, is: F.white))
            let neither = try ResizeTransformer(size: .zero, mode: mode).transform(image)
            #expect(neither.pixelSize == image.pixelSize)
        }
        // Derived from one side, the box does not enlarge unless asked to.
        let small = try TestImages.quadrants(width: 80, height: 40)
        #expect(try ResizeTransformer(size: PixelSize(width: 0, height: 100)).transform(small).pixelSize == small.pixelSize)
        let enlarged = try ResizeTransformer(size: PixelSize(width: 0, height: 100), enlarge: true).transform(small)
        #expect(enlarged.pixelSize == PixelSize(width: 200, height: 100))
    }

    @Test("K8 without enlarge a smaller image keeps its size in fit and fill; with enlarge it grows")
    func K8_enlarge() throws {
        let small = try TestImages.quadrants(width: 100, height: 50)
        let box = PixelSize(width: 400, height: 300)
        #expect(try ResizeTransformer(size: box, mode: .fit).transform(small).pixelSize == small.pixelSize)
        #expect(try ResizeTransformer(size: box, mode: .fill).transform(small).pixelSize == small.pixelSize)
        let fit = try ResizeTransformer(size: box, mode: .fit, enlarge: true).transform(small)
        #expect(fit.pixelSize == PixelSize(width: 400, height: 200))
        #expect(try pixel(fit, 10, 10, is: F.red))
        #expect(try pixel(fit, 390, 190, is: F.white))
        let fill = try ResizeTransformer(size: box, mode: .fill, enlarge: true).transform(small)
        #expect(fill.pixelSize == box)
        // Smaller in one dimension only: scaled by neither, cut to the box where it is larger.
        let wide = try TestImages.quadrants(width: 500, height: 200)
        #expect(try ResizeTransformer(size: box, mode: .fill).transform(wide).pixelSize == PixelSize(width: 400, height: 200))
    }

    @Test("K8 fill covers the box and crops at the gravity")
    func K8_fillGravity() throws {
        // 800×400 → 300×300: scaled to 600×300, then 300 columns are kept.
        let wide = try TestImages.quadrants(width: 800, height: 400)
        let box = PixelSize(width: 300, height: 300)
        let centre = try ResizeTransformer(size: box, mode: .fill).transform(wide)
        #expect(centre.pixelSize == box)
        #expect(try pixel(centre, 10, 10, is: F.red))
        #expect(try pixel(centre, 290, 10, is: F.green))
        #expect(try pixel(centre, 290, 290, is: F.white))
        let west = try ResizeTransformer(size: box, mode: .fill, gravity: .west).transform(wide)
        #expect(west.pixelSize == box)
        #expect(try pixel(west, 280, 10, is: F.red))
        #expect(try pixel(west, 280, 290, is: F.blue))
        let east = try ResizeTransformer(size: box, mode: .fill, gravity: .east).transform(wide)
        #expect(try pixel(east, 20, 10, is: F.green))
        #expect(try pixel(east, 20, 290, is: F.white))
        let focus = try ResizeTransformer(size: box, mode: .fill, gravity: .focusPoint(x: 1, y: 0.5)).transform(wide)
        #expect(try pixel(focus, 20, 10, is: F.green))
        let smart = try ResizeTransformer(size: box, mode: .fill, gravity: .smart).transform(wide)
        #expect(smart.pixelSize == box)

        // 400×800 → 300×300: scaled to 300×600, then 300 rows are kept.
        let tall = try TestImages.quadrants(width: 400, height: 800)
        let north = try ResizeTransformer(size: box, mode: .fill, gravity: .north).transform(tall)
        #expect(north.pixelSize == box)
        #expect(try pixel(north, 10, 280, is: F.red))
        let south = try ResizeTransformer(size: box, mode: .fill, gravity: .south).transform(tall)
        #expect(try pixel(south, 10, 20, is: F.blue))
        #expect(try pixel(south, 290, 20, is: F.white))
        let southEast = try ResizeTransformer(size: box, mode: .fill, gravity: .southEast).transform(tall)
        #expect(try pixel(southEast, 10, 20, is: F.blue))
        let northWest = try ResizeTransformer(size: box, mode: .fill, gravity: .northWest).transform(tall)
        #expect(try pixel(northWest, 290, 280, is: F.green))
    }

    @Test("K8 fill-down never enlarges: the box shrinks to fit the image, keeping its aspect ratio")
    func K8_fillDown() throws {
        let box = PixelSize(width: 400, height: 300)
        let large = try TestImages.quadrants(width: 800, height: 800)
        #expect(try ResizeTransformer(size: box, mode: .fillDown).transform(large).pixelSize == box)
        let small = try TestImages.quadrants(width: 500, height: 200)
        let result = try ResizeTransformer(size: box, mode: .fillDown, enlarge: true).transform(small)
        #expect(result.pixelSize == PixelSize(width: 267, height: 200))
        #expect(try pixel(result, 10, 10, is: F.red))
        #expect(try pixel(result, 256, 190, is: F.white))
    }

    @Test("K8 force ignores the aspect ratio; without enlarge a larger box shrinks proportionally")
    func K8_force() throws {
        let image = try TestImages.quadrants(width: 800, height: 400)
        let forced = try ResizeTransformer(size: PixelSize(width: 300, height: 300), mode: .force).transform(image)
        #expect(forced.pixelSize == PixelSize(width: 300, height: 300))
        #expect(try pixel(forced, 10, 10, is: F.red))
        #expect(try pixel(forced, 290, 10, is: F.green))
        #expect(try pixel(forced, 10, 290, is: F.blue))
        #expect(try pixel(forced, 290, 290, is: F.white))
        let small = try TestImages.quadrants(width: 200, height: 100)
        let box = PixelSize(width: 400, height: 300)
        #expect(try ResizeTransformer(size: box, mode: .force).transform(small).pixelSize == PixelSize(width: 133, height: 100))
        #expect(try ResizeTransformer(size: box, mode: .force, enlarge: true).transform(small).pixelSize == box)
    }

    @Test("K8 resizing keeps alpha and grey")
    func K8_channels() throws {
        let rgba = try TestImages.halfTransparent(width: 200, height: 100)
        let result = try ResizeTransformer(size: PixelSize(width: 100, height: 100)).transform(rgba)
        #expect(result.pixelSize == PixelSize(width: 100, height: 50))
        #expect(result.hasAlpha)
        #expect(try pixel(result, 10, 25, is: [0, 0, 0, 0]))
        #expect(try pixel(result, 90, 25, is: [0, 255, 0, 255]))
        let grey = try Image(pixels: [UInt8](repeating: 128, count: 64 * 64), width: 64, height: 64, channels: 1)
        let small = try ResizeTransformer(size: PixelSize(width: 32, height: 32)).transform(grey)
        #expect(small.channels == 1)
        #expect(try pixel(small, 16, 16, is: [128]))
    }

    @Test("K8 an animated GIF is resized frame by frame, keeping frames, durations and loop count")
    func K8_animated() throws {
        let animation = try F.animatedGIF(width: 80, height: 40)
        #expect(animation.frameCount == 3)
        let result = try ResizeTransformer(size: PixelSize(width: 40, height: 40), mode: .fill, gravity: .west).transform(animation)
        #expect(result.frameCount == 3)
        #expect(result.pixelSize == PixelSize(width: 40, height: 40))
        #expect(result.frameDurations == animation.frameDurations)
        #expect(result.loopCount == animation.loopCount)
        #expect(try pixel(result, 35, 5, frame: 0, is: F.red, tolerance: 30))
        #expect(try pixel(result, 35, 35, frame: 0, is: F.blue, tolerance: 30))
        #expect(try pixel(result, 20, 20, frame: 1, is: F.red, tolerance: 30))
        #expect(try pixel(result, 20, 20, frame: 2, is: F.blue, tolerance: 30))
        // The frame height travels with the pixels: re-encoded, it is still 3 frames of 40×40.
        let again = try VipsCoder.shared.decode(try TestImages.encode(result, as: .gif))
        #expect(again.frameCount == 3)
        #expect(again.pixelSize == PixelSize(width: 40, height: 40))
        #expect(again.loopCount == animation.loopCount)
    }

    @Test("K8 invalid resize parameters throw invalidTransform")
    func K8_invalid() throws {
        let image = try TestImages.quadrants(width: 40, height: 40)
        #expect(throwsInvalidTransform { try ResizeTransformer(size: PixelSize(width: -1, height: 10)).transform(image) })
        #expect(throwsInvalidTransform { try ResizeTransformer(size: PixelSize(width: 10, height: -5), mode: .fill).transform(image) })
        #expect(throwsInvalidTransform {
            try ResizeTransformer(size: PixelSize(width: 10, height: 10), mode: .fill, gravity: .focusPoint(x: 1.5, y: 0)).transform(image)
        })
        #expect(throwsInvalidTransform {
            try ResizeTransformer(size: PixelSize(width: 10, height: 10), mode: .fill, gravity: .focusPoint(x: .nan, y: 0)).transform(image)
        })
        #expect(throwsInvalidTransform {
            try ResizeTransformer(size: PixelSize(width: 200_000, height: 200_000), enlarge: true).transform(image)
        })
    }

    @Test("K8 the resize plan: fill rounding never leaves the image short of the box")
    func K8_plan() {
        for (w, h) in [(1001, 667), (999, 1333), (4000, 3000), (3, 1000), (1000, 3)] {
            for box in [PixelSize(width: 400, height: 300), PixelSize(width: 7, height: 13), PixelSize(width: 1, height: 1)] {
                let plan = ResizeTransformer.plan(source: PixelSize(width: w, height: h), box: box, mode: .fill, enlarge: true)
                #expect(plan.crop == box, "\(w)x\(h) in \(box)")
                #expect(plan.resized.width >= box.width && plan.resized.height >= box.height)
            }
        }
    }
}
