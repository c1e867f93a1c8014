import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTestSupport

/// A resize that waits, on its coding thread, until the test lets it go on: a way to hold
/// work in the process stage while another request joins it. Counts its transforms.
final class HeldResize: ImageTransformer {
    let inner = ResizeTransformer(size: PixelSize(width: 200, height: 150), mode: .fill)
    let release = DispatchSemaphore(value: 0)
    let calls = Atomic<Int>(0)

    var key: String { "held-" + inner.key }

    func transform(_ image: Image) throws(ImageError) -> Image {
        calls.add(1, ordering: .relaxed)
        release.wait()
        release.signal()
        return try inner.transform(image)
    }
}

@Suite("Passthrough through the stages")
struct PassthroughStagesTests {
    static let jpeg: Data = try! TestImages.encode(try! TestImages.quadrants(width: 800, height: 600), as: .jpeg, quality: 90)

    @Test("a source not in a passthrough format is made through the shared stages: one decode and one resize with a request that has no passthrough")
    func madeThroughTheStages() async throws {
        try await ImageManagerVariantTests.withVariantManager { origin, manager, coder in
            let gate = TestOriginGate()
            origin.register("/a.jpg", .image(Self.jpeg, contentType: "image/jpeg").pausing(afterBodyBytes: 0, until: gate))
            let resize = HeldResize()
            let plain = ImageRequest.variant(url: origin.url("/a.jpg"), transformer: resize, encoding: VariantEncoding(format: .fixed(.webp)))
            let passing = ImageRequest.variant(
                url: origin.url("/a.jpg"), transformer: resize, encoding: VariantEncoding(format: .fixed(.webp)), passthroughFormats: [.png]
            )
            let first = Task { try await manager.loadVariant(plain) }
            #expect(await gate.waitForArrivals(1))
            let second = Task { try await manager.loadVariant(passing) }
            // The second reads the header from the shared source, then waits for the first's resize.
            gate.open()
            #expect(await eventually { manager.pipeline.processed.waiterCount == 1 })
            resize.release.signal()
            let (a, b) = (try await first.value, try await second.value)
            #expect(a.variant.format == .webp && b.variant.format == .webp && b.variant.pixelSize == PixelSize(width: 200, height: 150))
            #expect(origin.requestCount("/a.jpg") == 1 && coder.decodeCount == 1 && coder.encodeCount == 2)
            #expect(resize.calls.load(ordering: .relaxed) == 1)
        }
    }

    @Test("a cached source that is no image is replaced on the passthrough path too")
    func unusableCachedSource() async throws {
        try await ImageManagerVariantTests.withVariantManager { origin, manager, _ in
            origin.register("/b.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let url = origin.url("/b.jpg")
            let request = ImageRequest.variant(url: url, encoding: VariantEncoding(format: .fixed(.png)), passthroughFormats: [.png])
            try await manager.imageCache.store(nil, data: Data("not an image".utf8), forKey: url.absoluteString, cacheType: .disk)
            let made = try await manager.loadVariant(request.adding(.waitStoreCache))
            #expect(made.variant.format == .png && made.sourceCacheType == CacheType.none)
            #expect(origin.requestCount("/b.jpg") == 1)
            #expect(await manager.imageCache.diskData(forKey: url.absoluteString) == Self.jpeg)
        }
    }
}
