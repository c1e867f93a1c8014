import Dispatch
import Foundation
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

@Suite("Memory budget")
struct MemoryBudgetTests {
    @Test("reservations that fit run at once; the rest wait in arrival order; one larger than the budget runs alone")
    func reservationsWaitInOrder() async throws {
        let budget = MemoryBudget(bytes: 100)
        final class Order: Sendable {
            let names = Locked<[String]>([])
        }
        let order = Order()
        // A thread of its own for each blocking reservation, as a work slot has.
        func reserve(_ name: String, _ bytes: Int) -> Task<Void, Never> {
            Task {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    Thread.detachNewThread {
                        budget.reserveBlocking(bytes)
                        order.names.withLock { $0.append(name) }
                        done.resume()
                    }
                }
            }
        }
        budget.reserveBlocking(60)
        #expect(budget.reservedBytes == 60)
        let second = reserve("second", 60)
        #expect(await eventually { budget.waiting == 1 })
        let large = reserve("large", 500)
        #expect(await eventually { budget.waiting == 2 })
        // Fits beside the first, but waits behind the older waiters.
        let small = reserve("small", 10)
        #expect(await eventually { budget.waiting == 3 })

        budget.release(60)
        await second.value
        #expect(budget.reservedBytes == 60 && budget.waiting == 2, "only the oldest waiter got its bytes")
        budget.release(60)
        await large.value
        #expect(budget.reservedBytes == 500, "a reservation larger than the budget runs when nothing else is reserved")
        #expect(budget.waiting == 1)
        budget.release(500)
        await small.value
        budget.release(10)
        #expect(order.names.withLock { $0 } == ["second", "large", "small"])
        #expect(budget.reservedBytes == 0 && budget.peakReservedBytes == 500)
    }

    @Test("what a decode reserves: the source's bytes and its pixels after shrink-on-load, twice when turned at full size")
    func reservedBytes() {
        let photo = ImageInfo(format: .jpeg, pixelSize: PixelSize(width: 4000, height: 3000), frameCount: 1, orientation: 1, hasAlpha: false)
        #expect(ImagePipeline.reservedBytes(decoding: photo, with: ImageDecodeOptions(), sourceBytes: 1000) == 4000 * 3000 * 3 + 1000)
        let thumbnail = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 400))
        #expect(ImagePipeline.reservedBytes(decoding: photo, with: thumbnail, sourceBytes: 1000) == 400 * 300 * 3 + 1000)
        var turned = photo
        turned.orientation = 6
        #expect(ImagePipeline.reservedBytes(decoding: turned, with: ImageDecodeOptions(), sourceBytes: 0) == 3000 * 4000 * 3 * 2)
        let animation = ImageInfo(format: .gif, pixelSize: PixelSize(width: 100, height: 50), frameCount: 10, orientation: 1, hasAlpha: true)
        #expect(ImagePipeline.reservedBytes(decoding: animation, with: ImageDecodeOptions(), sourceBytes: 0) == 100 * 50 * 4 * 10)
        #expect(ImagePipeline.reservedBytes(decoding: animation, with: ImageDecodeOptions(firstFrameOnly: true), sourceBytes: 0) == 100 * 50 * 4)
    }

    @Test("an interlaced file's decode reserves its decoder's whole-image buffer too: a progressive JPEG's coefficients, an interlaced PNG's rows")
    func interlacedReservesTheWholeImage() throws {
        let photo = try TestImages.quadrants(width: 400, height: 300)
        let thumbnail = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100))
        let thumbnailPixels = 100 * 75 * 3
        // libvips writes 4:2:0 below quality 90 and 4:4:4 from it.
        for (quality, bytesPerPixel) in [(80, 4), (95, 6)] {
            let progressive = try TestImages.encode(photo, as: .jpeg, quality: quality, progressive: true)
            let info = try VipsCoder.shared.inspect(progressive)
            #expect(info.isInterlaced && info.interlacedBytesPerPixel == bytesPerPixel, "quality \(quality): \(info)")
            #expect(ImagePipeline.reservedBytes(decoding: info, with: thumbnail, sourceBytes: 0) == thumbnailPixels + 400 * 300 * bytesPerPixel)
            let baseline = try VipsCoder.shared.inspect(try TestImages.encode(photo, as: .jpeg, quality: quality))
            #expect(!baseline.isInterlaced && baseline.interlacedBufferBytes == 0)
            #expect(ImagePipeline.reservedBytes(decoding: baseline, with: thumbnail, sourceBytes: 0) == thumbnailPixels)
        }
        let rgba = try TestImages.quadrants(width: 40, height: 30, alpha: true)
        let interlacedPNG = try VipsCoder.shared.encode(rgba, options: ImageEncodeOptions(format: .png, pngInterlaced: true))
        let png = try VipsCoder.shared.inspect(interlacedPNG)
        #expect(png.isInterlaced && png.interlacedBytesPerPixel == 4 && png.interlacedBufferBytes == 40 * 30 * 4)
        #expect(!(try VipsCoder.shared.inspect(try VipsCoder.shared.encode(rgba, options: ImageEncodeOptions(format: .png)))).isInterlaced)
        // A header from another coder that says only "interlaced" is counted at 16 bits a band.
        let declared = ImageInfo(format: .jpeg, pixelSize: PixelSize(width: 10, height: 10), frameCount: 1, orientation: 1, hasAlpha: true, isInterlaced: true)
        #expect(declared.interlacedBufferBytes == 10 * 10 * 8)
    }

    @Test("variant work waits in its slot while the budget is spent, so the queue fills and more is turned away; every variant is made")
    func variantWorkWaitsForBytes() async throws {
        let jpeg = try TestImages.encode(try TestImages.quadrants(width: 800, height: 600), as: .jpeg, quality: 90)
        // A full-size decode (no thumbnail box, no shrink for a blur): 800 × 600 × 3 bytes and
        // the source; then the blurred image and the encoder's output, 4 bytes a pixel each.
        let oneDecode = 800 * 600 * 3 + jpeg.count + 800 * 600 * 4 * 2
        let budget = MemoryBudget(bytes: oneDecode * 3 / 2)
        let limiter = WorkLimiter(workers: 3, queueSize: 0, memoryBudget: budget)
        let coder = PlanningCoder(holdingPlans: true)
        try await withOriginAndDownloader { origin, downloader in
            let cache = TestCaches.make { $0.shouldCacheImagesInMemory = false }
            let manager = ImageManager(cache: cache, loader: ImageLoaders([downloader]), coder: coder, variantWorkLimiter: limiter)
            func blurred(_ path: String) -> ImageRequest {
                origin.register(path, .image(jpeg, contentType: "image/jpeg"))
                return ImageRequest.variant(
                    url: origin.url(path), transformer: BlurTransformer(sigma: 2),
                    encoding: VariantEncoding(format: .fixed(.jpeg), quality: 70)
                )
            }
            let first = Task { try await manager.loadVariant(blurred("/a.jpg")) }
            #expect(await eventually { coder.planned.load(ordering: .relaxed) == 1 })
            #expect(budget.reservedBytes == oneDecode)
            let second = Task { try await manager.loadVariant(blurred("/b.jpg")) }
            let third = Task { try await manager.loadVariant(blurred("/c.jpg")) }
            #expect(await eventually { budget.waiting == 2 })
            #expect(limiter.running == 3)
            await #expect(throws: ImageError.overloaded("all 3 workers are busy and 0 requests are waiting")) {
                try await manager.loadVariant(blurred("/d.jpg"))
            }
            coder.open(3)
            for task in [first, second, third] {
                let result = try await task.value
                #expect(result.cacheType == CacheType.none)
            }
            #expect(budget.peakReservedBytes == oneDecode, "one variant at a time")
            #expect(budget.reservedBytes == 0 && budget.waiting == 0)
        }
    }

    @Test("a source over the pixel limit reserves nothing: it is refused without waiting for the budget")
    func oversizedSourceReservesNothing() async throws {
        let jpeg = try TestImages.encode(try TestImages.quadrants(width: 800, height: 600), as: .jpeg, quality: 90)
        let budget = MemoryBudget(bytes: 1)
        let limiter = WorkLimiter(workers: 2, queueSize: 0, memoryBudget: budget)
        try await withOriginAndDownloader { origin, downloader in
            let cache = TestCaches.make { $0.shouldCacheImagesInMemory = false }
            let manager = ImageManager(cache: cache, loader: ImageLoaders([downloader]), variantWorkLimiter: limiter)
            origin.register("/big.jpg", .image(jpeg, contentType: "image/jpeg"))
            // Another decode holds the whole budget while the oversized source is tried.
            budget.reserveBlocking(1)
            await #expect(throws: ImageError.imageTooLarge(pixels: 480_000, limit: 100_000)) {
                try await manager.loadVariant(ImageRequest.variant(
                    url: origin.url("/big.jpg"), transformer: BlurTransformer(sigma: 2),
                    encoding: VariantEncoding(format: .fixed(.jpeg), quality: 70)
                ).limited(ImageLimits(maxPixels: 100_000, maxFrames: 1)))
            }
            #expect(budget.reservedBytes == 1 && budget.peakReservedBytes == 1)
            budget.release(1)
        }
    }
}
