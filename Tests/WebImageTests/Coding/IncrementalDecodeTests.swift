import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Incremental decoding")
struct IncrementalDecodeTests {
    @Test("K10 a progressive JPEG gives a preview from partial bytes")
    func K10_progressivePreview() throws {
        let full = try TestImages.quadrants(width: 320, height: 240)
        let data = try TestImages.encode(full, as: .jpeg, quality: 90, progressive: true)
        let coder = VipsCoder.shared
        #expect(try coder.decodePartial(data.prefix(40), options: .init()) == nil, "no header yet: nothing to show")
        #expect(throws: ImageError.self) { try coder.decode(data.prefix(data.count / 2), options: .init()) }

        let preview = try #require(try coder.decodePartial(data.prefix(data.count / 2), options: .init()))
        #expect(preview.pixelSize == PixelSize(width: 320, height: 240))
        // The first scans of a progressive JPEG cover the whole picture: even the bottom
        // quadrants already show their colour, roughly.
        #expect(close(try preview.pixel(x: 80, y: 180), TestImages.bottomLeft, tolerance: 80))
        #expect(close(try preview.pixel(x: 240, y: 180), TestImages.bottomRight, tolerance: 80))

        let complete = try #require(try coder.decodePartial(data, options: .init()))
        #expect(close(try complete.pixel(x: 240, y: 60), TestImages.topRight, tolerance: 30))
    }

    @Test("partial data of other formats never throws and never shows a wrong size")
    func partialOtherFormats() throws {
        for format in [ImageFormat.png, .webp, .gif] {
            let data = try TestImages.encode(try TestImages.quadrants(width: 200, height: 200), as: format)
            for fraction in [0.1, 0.5, 0.9] {
                let preview = try VipsCoder.shared.decodePartial(data.prefix(Int(Double(data.count) * fraction)), options: .init())
                if let preview {
                    #expect(preview.pixelSize == PixelSize(width: 200, height: 200), "\(format) at \(fraction)")
                }
            }
        }
    }
}
