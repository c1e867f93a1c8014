import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("VipsCoder encoding")
struct VipsCoderEncodeTests {
    let coder = VipsCoder.shared

    @Test("K6 every writable format encodes and decodes back", arguments: ImageFormat.allCases.filter(\.isWritable))
    func K6_encodesEachWritableFormat(format: ImageFormat) throws {
        let image = try TestImages.quadrants(width: 48, height: 32)
        let data = try coder.encode(image, options: .init(format: format))
        #expect(ImageFormat(data: data) == format)
        if VipsCoder.untrustedLoaders[format] != nil, !VipsCoder.untrustedLoadersAllowed {
            // JPEG XL is written, but read only with libvips' untrusted loaders allowed.
            #expect(throws: ImageError.self) { try coder.decode(data, options: .init()) }
            return
        }
        let back = try coder.decode(data, options: .init())
        #expect(back.pixelSize == image.pixelSize)
        #expect(close(try back.pixel(x: 40, y: 4), TestImages.topRight, tolerance: 60))
    }

    @Test("K6 quality changes the size of lossy formats", arguments: [ImageFormat.jpeg, .webp, .avif])
    func K6_qualityChangesSize(format: ImageFormat) throws {
        let image = try TestImages.gradient(width: 256, height: 256)
        let high = try coder.encode(image, options: .init(format: format, quality: 95))
        let low = try coder.encode(image, options: .init(format: format, quality: 20))
        #expect(low.count < high.count)
    }

    @Test("K6 the maximum file size is met or the call fails clearly")
    func K6_maxFileSize() throws {
        let image = try TestImages.gradient(width: 512, height: 512)
        let unlimited = try coder.encode(image, options: .init(format: .jpeg, quality: 95))
        let limit = unlimited.count / 3
        let limited = try coder.encode(image, options: .init(format: .jpeg, quality: 95, maxFileSize: limit))
        #expect(limited.count <= limit)
        #expect(ImageFormat(data: limited) == .jpeg)
        #expect(throws: ImageError.self) {
            try coder.encode(image, options: .init(format: .jpeg, maxFileSize: 200))
        }
        do {
            _ = try coder.encode(image, options: .init(format: .png, maxFileSize: 100))
            Issue.record("a 100-byte PNG of a 512×512 gradient cannot exist")
        } catch {
            guard case .fileSizeLimitUnreachable(let maxBytes, let smallest) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(maxBytes == 100)
            #expect(smallest > 100)
        }
    }

    @Test("K6 alpha composited over the background colour for JPEG")
    func K6_alphaToJPEGUsesBackground() throws {
        let image = try TestImages.halfTransparent(width: 32, height: 16)
        let red = ImageEncodeOptions.Color(red: 255, green: 0, blue: 0)
        let jpeg = try coder.encode(image, options: .init(format: .jpeg, quality: 95, backgroundColor: red))
        let decoded = try coder.decode(jpeg, options: .init())
        #expect(!decoded.hasAlpha)
        #expect(close(try decoded.pixel(x: 4, y: 8), [255, 0, 0], tolerance: 30))
        #expect(close(try decoded.pixel(x: 28, y: 8), [0, 255, 0], tolerance: 30))
        let white = try coder.decode(try coder.encode(image, options: .init(format: .jpeg)), options: .init())
        #expect(close(try white.pixel(x: 4, y: 8), [255, 255, 255], tolerance: 30))
    }

    @Test("formats that cannot be written fail clearly")
    func unwritableFormats() throws {
        let image = try TestImages.gradient(width: 8, height: 8)
        #expect(throws: ImageError.self) { try coder.encode(image, options: .init(format: .svg)) }
        #expect(!coder.canEncode(.pdf))
    }

    @Test("animations round-trip through GIF and WebP")
    func animationsRoundTrip() throws {
        // Distinct frames: GIF writers merge identical neighbours into one longer frame.
        let frames = try (0..<3).map { try TestImages.gradient(width: 20, height: 20, seed: $0 * 80) }
        let animation = try Image.animated(frames: frames, durations: [0.05, 0.5, 1], loopCount: 0)
        for format in [ImageFormat.gif, .webp] {
            let back = try coder.decode(try coder.encode(animation, options: .init(format: format)), options: .init())
            #expect(back.frameCount == 3)
            #expect(back.frameDurations == [0.05, 0.5, 1])
            #expect(back.loopCount == 0)
            #expect(try back.frame(at: 2).pixelSize == PixelSize(width: 20, height: 20))
        }
    }
}
