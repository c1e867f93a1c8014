import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTestSupport

/// Memory and CPU by what a request will do: the budget counts the output and its encodes,
/// and one output runs a bounded number of encodes.
@Suite("Request bounds")
struct RequestBoundsTests {
    static func photo() throws -> Data {
        try TestImages.encode(try TestImages.quadrants(width: 200, height: 150), as: .jpeg, quality: 90)
    }

    // SPEC HP6
    @Test("HP6 an output that can never fit the memory budget is refused before its source is decoded, with the bytes it would hold")
    func outputOverTheBudgetIsRefused() async throws {
        let tiny = try TestImages.encode(try TestImages.quadrants(width: 8, height: 8), as: .png)
        let coder = PlanningCoder()
        let budget = MemoryBudget(bytes: 64 << 20)
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/tiny.png", .image(tiny, contentType: "image/png"))
            let manager = ImageManager(
                cache: TestCaches.make(), loader: downloader, coder: coder,
                variantWorkLimiter: WorkLimiter(workers: 2, queueSize: 2, memoryBudget: budget)
            )
            // 8 × 8 pixels enlarged to 6000 × 6000: 144 MB for the resize and as much for its encode.
            let enlarged = ImageRequest.variant(
                url: origin.url("/tiny.png"), transformer: ResizeTransformer(size: PixelSize(width: 6000, height: 6000), mode: .force, enlarge: true),
                encoding: VariantEncoding(format: .fixed(.png))
            )
            let needed = 8 * 8 * 3 + tiny.count + 6000 * 6000 * 4 * 2
            await #expect(throws: ImageError.memoryBudgetExceeded(needed: needed, budget: 64 << 20)) {
                try await manager.loadVariant(enlarged)
            }
            #expect(coder.planned.load(ordering: .relaxed) == 0, "refused from the header, before any pixel")
            #expect(budget.peakReservedBytes == 0)
            // The same source at a size that fits is made, and reserves its output too.
            let small = ImageRequest.variant(
                url: origin.url("/tiny.png"), transformer: ResizeTransformer(size: PixelSize(width: 100, height: 100), mode: .force, enlarge: true),
                encoding: VariantEncoding(format: .fixed(.png))
            )
            let made = try await manager.loadVariant(small)
            #expect(made.variant.pixelSize == PixelSize(width: 100, height: 100))
            #expect(budget.peakReservedBytes == 8 * 8 * 3 + tiny.count + 100 * 100 * 4 * 2)
            #expect(budget.reservedBytes == 0)
        }
    }

    @Test("what an output reserves besides its decode: its largest image, its encode, auto quality's read-back and best's kept result")
    func makingFootprint() {
        let info = ImageInfo(format: .jpeg, pixelSize: PixelSize(width: 1000, height: 500), frameCount: 1, orientation: 1, hasAlpha: false)
        let options = ImageDecodeOptions()
        let extend = ExtendTransformer(size: PixelSize(width: 2000, height: 2000))
        var request = ImageRequest(url: URL(string: "https://example.com/a.jpg")!)
        request.output = .encoded(VariantEncoding(format: .fixed(.webp)))
        #expect(ImagePipeline.reservedBytes(making: request, info: info, options: options) == 1000 * 500 * 4)
        request.processing.transformer = extend
        let canvas = 2000 * 2000 * 4
        #expect(ImagePipeline.reservedBytes(making: request, info: info, options: options) == canvas * 2)
        request.output = .encoded(VariantEncoding(format: .fixed(.webp), autoQuality: AutoQuality()))
        #expect(ImagePipeline.reservedBytes(making: request, info: info, options: options) == canvas * 2 + canvas + 2000 * 2000 * 12)
        request.output = .encoded(VariantEncoding(format: .best([.jpeg, .webp])))
        #expect(ImagePipeline.reservedBytes(making: request, info: info, options: options) == canvas * 3)
        // A resize holds the scaled image before its crop: a fill of a wide image.
        request.processing.transformer = ResizeTransformer(size: PixelSize(width: 100, height: 100), mode: .fill)
        request.output = .encoded(VariantEncoding(format: .fixed(.png)))
        #expect(ImagePipeline.reservedBytes(making: request, info: info, options: options) == 200 * 100 * 4 + 100 * 100 * 4)
    }

    // SPEC HP6
    @Test("HP6 one output runs at most the manager's encodes: best of four formats with auto quality stops there and serves the best so far")
    func encodeCap() async throws {
        let photo = try Self.photo()
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/photo.jpg", .image(photo, contentType: "image/jpeg"))
            let request = ImageRequest.variant(
                url: origin.url("/photo.jpg"),
                encoding: VariantEncoding(format: .best([.jpeg, .webp, .avif, .png]), autoQuality: AutoQuality())
            )
            let capped = PlanningCoder()
            let manager = ImageManager(cache: TestCaches.make(), loader: downloader, coder: capped, maxEncodesPerOutput: 3)
            let result = try await manager.loadVariant(request)
            #expect(capped.encodes.load(ordering: .relaxed) == 3)
            #expect(!result.variant.data.isEmpty)
            let free = PlanningCoder()
            let uncapped = ImageManager(cache: TestCaches.make(), loader: downloader, coder: free)
            _ = try await uncapped.loadVariant(request)
            #expect(free.encodes.load(ordering: .relaxed) > 3, "without the cap the same output takes more")
        }
    }

    // SPEC HP1
    @Test("HP1 coding stops when its last caller leaves: no encode starts after the cancel")
    func codingStopsWhenAbandoned() async throws {
        let photo = try Self.photo()
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/photo.jpg", .image(photo, contentType: "image/jpeg"))
            let coder = PlanningCoder(holdingFirstEncode: true)
            let manager = ImageManager(cache: TestCaches.make(), loader: downloader, coder: coder, variantWorkLimiter: WorkLimiter(workers: 1, queueSize: 1))
            let request = ImageRequest.variant(url: origin.url("/photo.jpg"), encoding: VariantEncoding(format: .fixed(.webp), autoQuality: AutoQuality()))
            let task = Task { try await manager.loadVariant(request) }
            #expect(await eventually { coder.encodes.load(ordering: .relaxed) == 1 })
            task.cancel()
            await #expect(throws: ImageError.cancelled) { try await task.value }
            coder.encodeGate?.signal()
            #expect(await eventually { manager.pipeline.inFlightCount == 0 && manager.variantWorkLimiter?.running == 0 })
            #expect(coder.encodes.load(ordering: .relaxed) == 1, "auto quality's search stopped after the encode in progress")
        }
    }
}
