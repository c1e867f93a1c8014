import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

@Suite("Proxy URLs sharing their work")
struct SharedTransformTests {
    static let jpeg: Data = try! TestImages.encode(try! TestImages.quadrants(width: 800, height: 600), as: .jpeg, quality: 90)

    @Test("two URLs that differ only in q: make one download, one decode and one resize, and two encodes")
    func qualityOnlyShares() async throws {
        try await TestOrigin.with { origin in
            let gate = TestOriginGate()
            origin.register("/photo.jpg", .image(Self.jpeg, contentType: "image/jpeg").pausing(afterBodyBytes: 0, until: gate))
            let proxy = try await TestProxy.start()
            let pipeline = proxy.server.pipeline
            let coder = CountingCoder()
            func request(_ quality: Int) throws -> ImageRequest {
                let path = "/insecure/rs:fill:200:150/q:\(quality)/f:webp/plain/" + origin.url("/photo.jpg").absoluteString
                var request = try pipeline.resolve(path: path, accept: nil).get().variant.request
                request.coder = coder
                return request
            }
            let (low, high) = (try request(40), try request(90))
            #expect(low.processing.transformer?.key == high.processing.transformer?.key)
            let manager = pipeline.manager
            let first = Task { try await manager.loadVariant(low) }
            #expect(await gate.waitForArrivals(1))
            let second = Task { try await manager.loadVariant(high) }
            // The second waits for the first's processed image: it decodes and resizes nothing.
            #expect(await eventually { manager.pipeline.processed.waiterCount == 1 })
            gate.open()
            let (a, b) = (try await first.value, try await second.value)
            #expect(a.variant.pixelSize == PixelSize(width: 200, height: 150) && b.variant.pixelSize == a.variant.pixelSize)
            #expect(a.variant.count < b.variant.count, "each its own quality")
            #expect(origin.requestCount("/photo.jpg") == 1)
            #expect(coder.decodeCount == 1 && coder.encodeCount == 2)
            await proxy.stop()
        }
    }
}
