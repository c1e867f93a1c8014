import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("EXIF orientation")
struct OrientationTests {
    @Test("K7 every EXIF orientation comes out upright", arguments: 1...8)
    func K7_orientationApplied(orientation: Int) throws {
        let upright = try TestImages.quadrants(width: 64, height: 32)
        let data = try TestImages.jpeg(upright: upright, orientation: orientation)
        for options in [ImageDecodeOptions(), ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 32, height: 32))] {
            let image = try VipsCoder.shared.decode(data, options: options)
            let size = image.pixelSize
            #expect(image.sourceOrientation == orientation)
            #expect(size.width == size.height * 2, "landscape again: \(size)")
            let (w, h) = (size.width, size.height)
            #expect(close(try image.pixel(x: w / 4, y: h / 4), TestImages.topLeft), "orientation \(orientation) top-left")
            #expect(close(try image.pixel(x: 3 * w / 4, y: h / 4), TestImages.topRight), "orientation \(orientation) top-right")
            #expect(close(try image.pixel(x: w / 4, y: 3 * h / 4), TestImages.bottomLeft), "orientation \(orientation) bottom-left")
            #expect(close(try image.pixel(x: 3 * w / 4, y: 3 * h / 4), TestImages.bottomRight), "orientation \(orientation) bottom-right")
        }
    }
}
