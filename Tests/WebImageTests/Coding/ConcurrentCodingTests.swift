import CVips
import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Concurrent coding")
struct ConcurrentCodingTests {
    @Test("libvips runs without run-time compiled (orc) vector code, which crashed under concurrent thumbnails")
    func noOrcVectorCode() throws {
        try Vips.start()
        #expect(wi_vector_enabled() == 0)
    }

    @Test("many tasks decode, encode and fail at once without interference")
    func concurrentDecodeEncode() async throws {
        let good = try TestImages.encode(try TestImages.gradient(width: 200, height: 150), as: .jpeg)
        let png = try TestImages.encode(try TestImages.quadrants(width: 120, height: 80), as: .png)
        let truncated = png.prefix(png.count / 2)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for index in 0..<64 {
                group.addTask {
                    do {
                        switch index % 4 {
                        case 0:
                            let image = try VipsCoder.shared.decode(good, options: .init())
                            return image.pixelSize == PixelSize(width: 200, height: 150) ? "ok" : "wrong size"
                        case 1:
                            let image = try VipsCoder.shared.decode(png, options: .init(thumbnailPixelSize: PixelSize(width: 60, height: 60)))
                            return image.pixelSize == PixelSize(width: 60, height: 40) ? "ok" : "wrong thumbnail"
                        case 2:
                            _ = try VipsCoder.shared.decode(truncated, options: .init())
                            return "truncated decoded"
                        default:
                            let image = try VipsCoder.shared.decode(png, options: .init())
                            let webp = try VipsCoder.shared.encode(image, options: .init(format: .webp))
                            return ImageFormat(data: webp) == .webp ? "ok" : "bad encode"
                        }
                    } catch let error as ImageError {
                        // Each failure carries its own message, never another task's.
                        if index % 4 == 2, case .badImageData(let reason) = error, reason.contains("png") || reason.contains("PNG") || reason.contains("spng") {
                            return "ok"
                        }
                        return "unexpected \(error)"
                    } catch {
                        return "unexpected \(error)"
                    }
                }
            }
            var all: [String] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.filter { $0 != "ok" } == [])
    }
}
