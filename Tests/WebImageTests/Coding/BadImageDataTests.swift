import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("VipsCoder bad input")
struct BadImageDataTests {
    let coder = VipsCoder.shared

    private func expectBadImageData(_ data: Data, _ comment: Comment? = nil) {
        #expect(throws: ImageError.self, comment) {
            try coder.decode(data, options: .init())
        }
        do {
            _ = try coder.decode(data, options: .init())
        } catch {
            guard case .badImageData(let reason) = error else {
                Issue.record("expected badImageData, got \(error)")
                return
            }
            #expect(!reason.isEmpty)
        }
    }

    @Test("K5 truncated images fail with badImageData", arguments: [ImageFormat.jpeg, .png, .gif, .webp, .avif, .tiff])
    func K5_truncated(format: ImageFormat) throws {
        let data = try TestImages.encode(try TestImages.gradient(width: 300, height: 200), as: format)
        for fraction in [0.3, 0.6, 0.9] {
            expectBadImageData(data.prefix(Int(Double(data.count) * fraction)), "\(format) cut at \(fraction)")
        }
        expectBadImageData(data.prefix(20), "\(format) header only")
    }

    @Test("K5 garbled, empty, HTML and mislabelled data fail with badImageData")
    func K5_garbledEmptyAndHTML() throws {
        expectBadImageData(Data(), "empty")
        expectBadImageData(Data("<!DOCTYPE html><html><body>Not Found</body></html>".utf8), "HTML")
        expectBadImageData(Data("just some text that is not an image.png".utf8), "text")
        var garbled = try TestImages.encode(try TestImages.gradient(width: 200, height: 200), as: .png)
        // Overwrite the IHDR chunk and the start of the image data: the CRC no longer matches.
        for index in 16..<min(garbled.count, 120) { garbled[index] = UInt8.random(in: 0...255) }
        expectBadImageData(garbled, "garbled PNG")
        var garbledJPEG = try TestImages.encode(try TestImages.gradient(width: 200, height: 200), as: .jpeg)
        for index in 2..<min(garbledJPEG.count, 600) { garbledJPEG[index] = UInt8(index & 0xFF) }
        expectBadImageData(garbledJPEG, "garbled JPEG headers")
        do {
            _ = try coder.decode(Data("<html>oops</html>".utf8), options: .init())
        } catch {
            #expect(error.description.contains("HTML"), "the message says what the bytes look like: \(error)")
        }
    }

    @Test("K5 a decompression bomb is refused from its header")
    func K5_bombRefusedFromHeader() throws {
        let bomb = TestImages.pngBomb(width: 30_000, height: 30_000)
        #expect(bomb.count < 200)
        #expect(throws: ImageError.imageTooLarge(pixels: 900_000_000, limit: 50_000_000)) {
            try coder.decode(bomb, options: .init())
        }
        // Thumbnails and scale-down are checked too: the header is all that is read.
        #expect(throws: ImageError.imageTooLarge(pixels: 900_000_000, limit: 50_000_000)) {
            try coder.decode(bomb, options: .init(thumbnailPixelSize: PixelSize(width: 64, height: 64)))
        }
        // Below the limit the same header goes on to decoding and fails there on the missing data.
        #expect(throws: ImageError.self) {
            try coder.decode(TestImages.pngBomb(width: 2000, height: 2000), options: .init())
        }
    }

    @Test("K5 the pixel limit counts every frame decoded; a frame limit decodes the first frames")
    func K5_frameLimits() throws {
        let frames = try (0..<6).map { try TestImages.gradient(width: 40, height: 40, seed: $0) }
        let data = try TestImages.encode(try Image.animated(frames: frames, durations: Array(repeating: 0.1, count: 6)), as: .gif)
        #expect(try coder.decode(data, options: .init(limits: ImageLimits(maxFrames: 5))).frameCount == 5)
        // Three frames fit where six would not.
        #expect(try coder.decode(data, options: .init(limits: ImageLimits(maxPixels: 5000, maxFrames: 3))).frameCount == 3)
        #expect(try coder.decode(data, options: .init(limits: ImageLimits(maxFrames: 1))).frameCount == 1)
        #expect(throws: ImageError.imageTooLarge(pixels: 9600, limit: 5000)) {
            try coder.decode(data, options: .init(limits: ImageLimits(maxPixels: 5000)))
        }
        // The first frame alone is within the pixel limit.
        let first = try coder.decode(data, options: .init(firstFrameOnly: true, limits: ImageLimits(maxPixels: 5000)))
        #expect(first.frameCount == 1)
    }

    @Test("untrusted loaders stay blocked")
    func untrustedLoadersBlocked() {
        #expect(throws: ImageError.untrustedFormat("pdfload")) {
            try coder.decode(Data("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n".utf8), options: .init())
        }
        #expect(!coder.canDecode(Data("%PDF-1.4\n".utf8)))
    }
}
