import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Resizing in linear light: black and white lines averaged as light averages (sRGB 188),
/// not as their gamma-encoded numbers do (128).
@Suite("Resizing in linear light")
struct LinearLightResizeTests {
    /// Alternate black and white rows, `size` × `size`.
    static func lines(size: Int) throws -> Image {
        var pixels: [UInt8] = []
        for y in 0..<size {
            pixels += [UInt8](repeating: y % 2 == 0 ? 0 : 255, count: size * 3)
        }
        return try Image(pixels: pixels, width: size, height: size, channels: 3)
    }

    static func grey(_ image: Image) throws -> Int { try image.pixel(x: image.pixelSize.width / 2, y: image.pixelSize.height / 2)[1] }

    @Test("a linear-light resize keeps the lines' brightness; its key says so")
    func transformer() throws {
        let image = try Self.lines(size: 128)
        let gamma = try ResizeTransformer(size: PixelSize(width: 32, height: 32)).transform(image)
        let linear = ResizeTransformer(size: PixelSize(width: 32, height: 32), linearLight: true)
        #expect(abs(try Self.grey(gamma) - 128) <= 6)
        #expect(abs(try Self.grey(try linear.transform(image)) - 188) <= 6)
        #expect(linear.key == "resize-fit-32x32-linear" && linear.resizesInLinearLight)
    }

    @Test("a shrink-on-load decode for a linear-light resize resamples in linear light too", arguments: [ImageFormat.png, .jpeg])
    func decodeForTheTransformer(_ format: ImageFormat) async throws {
        let data = try TestImages.encode(try Self.lines(size: 256), as: format, quality: 100)
        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([]))
        for (linear, expected) in [(false, 128), (true, 188)] {
            var request = ImageRequest(source: .custom(key: "lines-\(format)") { () throws(ImageError) -> Data in data })
            request.processing.transformer = ResizeTransformer(size: PixelSize(width: 32, height: 32), linearLight: linear)
            request.output = .encoded(VariantEncoding(format: .fixed(.png)))
            let variant = try await manager.loadVariant(request).variant
            let image = try VipsCoder.shared.decode(variant.data)
            #expect(abs(try Self.grey(image) - expected) <= 8, "\(format) linear \(linear)")
        }
    }
}
