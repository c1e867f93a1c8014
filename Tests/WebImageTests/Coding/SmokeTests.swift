import Foundation
import Testing
@testable import WebImage

@Test func smoke() throws {
    var pixels = [UInt8](repeating: 0, count: 64 * 48 * 3)
    for i in 0..<(64 * 48) { pixels[i * 3] = UInt8(i % 256); pixels[i * 3 + 1] = 100; pixels[i * 3 + 2] = 200 }
    let image = try Image(pixels: pixels, width: 64, height: 48, channels: 3)
    for format in [ImageFormat.jpeg, .png, .webp, .avif, .gif, .tiff] {
        let data = try VipsCoder.shared.encode(image, options: .init(format: format))
        #expect(ImageFormat(data: data) == format)
        let decoded = try VipsCoder.shared.decode(data)
        #expect(decoded.pixelSize == PixelSize(width: 64, height: 48), "\(format)")
        let thumb = try VipsCoder.shared.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        print(format, data.count, decoded.channels, thumb.pixelSize, try decoded.pixel(x: 10, y: 10))
    }
}
