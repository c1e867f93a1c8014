import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

extension ImageManagerTests {
    @Test("concurrent identical loads share one download and one decode; a different decode option does not join them")
    func identicalLoadsShareOneDecode() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let coder = CountingCoder()
            let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([downloader]), coder: coder)
            defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
            let gate = TestOriginGate()
            origin.register("/same.png", .gated(gate, then: .image(Self.png)))
            let url = origin.url("/same.png")
            let done = Recorder<PixelSize?>()
            for index in 0..<20 {
                let options: ImageOptions = index == 0 ? .scaleDownLargeImages : []
                manager.loadImage(with: url, options: options) { result in done.append(try? result.get().image?.pixelSize) }
            }
            #expect(await gate.waitForArrivals(1))
            gate.open()
            #expect(await done.wait(for: 20))
            #expect(done.values.allSatisfy { $0 == PixelSize(width: 40, height: 30) })
            #expect(origin.requestCount("/same.png") == 1)
            #expect(coder.decodeCount == 2, "one decode for the 19 alike, one for the scale-down load")
        }
    }
}
