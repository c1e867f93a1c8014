import Foundation
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

extension ImageManagerTests {
    @Test("K8 a manager load with a ResizeTransformer returns the resized image under the transformed key")
    func K8_managerResize() async throws {
        try await withManager { origin, manager in
            let png = try TestImages.encode(try TestImages.quadrants(width: 400, height: 200), as: .png)
            origin.register("/r.png", .image(png))
            let url = origin.url("/r.png")
            var context = ImageContext()
            context.transformer = ResizeTransformer(size: PixelSize(width: 100, height: 100), mode: .fill, gravity: .east)
            let result = try await manager.loadImage(from: url, options: .waitStoreCache, context: context)
            let image = try #require(result.image)
            #expect(image.pixelSize == PixelSize(width: 100, height: 100))
            #expect(close(try image.pixel(x: 20, y: 20), TestImages.topRight, tolerance: 6))
            #expect(close(try image.pixel(x: 20, y: 80), TestImages.bottomRight, tolerance: 6))
            let key = try #require(manager.cacheKey(for: url, context: context))
            #expect(key.hasSuffix("/r-resize-fill-100x100-ea.png"))
            #expect(await manager.imageCache.diskCache?.data(forKey: key) != nil)
            #expect(origin.totalRequestCount == 1)
        }
    }

    // A resize through the manager decodes only as many pixels as it needs.
    @Test("K8 a shrinking ResizeTransformer decodes the source shrunk (shrink-on-load); the original stays full size")
    func K8_managerResizeShrinksOnLoad() async throws {
        try await withManager { origin, manager in
            let jpeg = try TestImages.encode(try TestImages.quadrants(width: 2000, height: 1000), as: .jpeg, quality: 90)
            origin.register("/big.jpg", .image(jpeg))
            let url = origin.url("/big.jpg")
            let seen = Locked<[PixelSize]>([])
            var context = ImageContext()
            context.transformer = RecordingTransformer(
                inner: ResizeTransformer(size: PixelSize(width: 200, height: 200), mode: .fill, gravity: .west), seen: seen
            )
            context.originalStoreCacheType = .all
            let result = try await manager.loadImage(from: url, options: .waitStoreCache, context: context)
            let image = try #require(result.image)
            #expect(image.pixelSize == PixelSize(width: 200, height: 200))
            #expect(try close(image.pixel(x: 40, y: 40), TestImages.topLeft, tolerance: 12), "west keeps the red quadrant")
            #expect(try close(image.pixel(x: 160, y: 160), TestImages.bottomLeft, tolerance: 12))
            // The transformer was handed a 400 × 200 decode (its scaled size), not 2000 × 1000.
            #expect(seen.withLock { $0 } == [PixelSize(width: 400, height: 200)])
            // The shrunk decode is not taken for the original: neither memory nor disk holds it.
            let originalKey = try #require(manager.cacheKey(for: url))
            #expect(manager.cache.imageFromMemory(forKey: originalKey) == nil)
            #expect(await manager.imageCache.diskCache?.data(forKey: originalKey) == jpeg)
        }
    }

    @Test("K8 no shrink-on-load with a thumbnail size, for a resize that keeps over half the size, or for an animation")
    func K8_managerResizeFullDecodeCases() async throws {
        try await withManager { origin, manager in
            let png = try TestImages.encode(try TestImages.quadrants(width: 400, height: 200), as: .png)
            origin.register("/r.png", .image(png))
            let seen = Locked<[PixelSize]>([])
            var context = ImageContext()
            context.transformer = RecordingTransformer(inner: ResizeTransformer(size: PixelSize(width: 300, height: 300)), seen: seen)
            let mild = try #require(try await manager.loadImage(from: origin.url("/r.png"), context: context).image)
            #expect(mild.pixelSize == PixelSize(width: 300, height: 150))
            #expect(seen.withLock { $0 } == [PixelSize(width: 400, height: 200)], "a 0.75 scale decodes at full size")

            let frames = try (0..<3).map { _ in try TestImages.quadrants(width: 400, height: 200) }
            let gif = try VipsCoder.shared.encode(try Image.animated(frames: frames, durations: [0.1, 0.1, 0.1]), options: ImageEncodeOptions(format: .gif))
            origin.register("/a.gif", .image(gif))
            seen.withLock { $0.removeAll() }
            context.transformer = RecordingTransformer(inner: ResizeTransformer(size: PixelSize(width: 40, height: 40)), seen: seen)
            let animated = try #require(try await manager.loadImage(from: origin.url("/a.gif"), options: .transformAnimatedImage, context: context).image)
            #expect(animated.frameCount == 3)
            #expect(animated.pixelSize == PixelSize(width: 40, height: 20))
            #expect(seen.withLock { $0 } == [PixelSize(width: 400, height: 200)], "an animation is decoded whole")

            // A thumbnail size asked for is what the transformer gets, box or no box.
            let jpeg = try TestImages.encode(try TestImages.quadrants(width: 2000, height: 1000), as: .jpeg)
            origin.register("/big.jpg", .image(jpeg))
            seen.withLock { $0.removeAll() }
            context.transformer = RecordingTransformer(inner: ResizeTransformer(size: PixelSize(width: 200, height: 200), mode: .fill), seen: seen)
            context.thumbnailPixelSize = PixelSize(width: 1000, height: 1000)
            let thumbnailed = try #require(try await manager.loadImage(from: origin.url("/big.jpg"), context: context).image)
            #expect(thumbnailed.pixelSize == PixelSize(width: 200, height: 200))
            #expect(seen.withLock { $0 } == [PixelSize(width: 1000, height: 500)])
        }
    }
}

/// Hands its input's size to `seen`, then resizes with `inner` (and asks `inner` for the
/// shrink-on-load box, as a wrapping transformer should).
private struct RecordingTransformer: ImageTransformer {
    let inner: ResizeTransformer
    let seen: Locked<[PixelSize]>

    var key: String { "recording-" + inner.key }

    func transform(_ image: Image) throws(ImageError) -> Image {
        seen.withLock { $0.append(image.pixelSize) }
        return try inner.transform(image)
    }

    func shrinkOnLoadSize(forSourceSize sourceSize: PixelSize) -> PixelSize? {
        inner.shrinkOnLoadSize(forSourceSize: sourceSize)
    }
}
