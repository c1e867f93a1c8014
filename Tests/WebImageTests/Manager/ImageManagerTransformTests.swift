import Foundation
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

/// A real transformer written with raw pixels (no libvips transform): keeps the top-left
/// `width` × `height` corner, and counts its calls.
struct CornerTransformer: ImageTransformer {
    let width: Int
    let height: Int
    let calls: Locked<Int>

    init(width: Int, height: Int, calls: Locked<Int> = Locked(0)) {
        self.width = width
        self.height = height
        self.calls = calls
    }

    var key: String { "Corner(\(width)x\(height))" }

    func transform(_ image: Image) throws(ImageError) -> Image {
        calls.withLock { $0 += 1 }
        guard width <= image.pixelSize.width, height <= image.pixelSize.height else {
            throw .invalidTransform("corner \(width)x\(height) is larger than the \(image.pixelSize) image")
        }
        let pixels = [UInt8](try image.pixels())
        let channels = image.channels
        var corner: [UInt8] = []
        corner.reserveCapacity(width * height * channels)
        for y in 0..<height {
            let start = (y * image.pixelSize.width) * channels
            corner += pixels[start..<start + width * channels]
        }
        return try Image(pixels: corner, width: width, height: height, channels: channels)
    }
}

extension ImageManagerTests {
    @Test("M7 a transformed request whose original is on disk is made from it, without network")
    func M7_transformFromOriginalOnDisk() async throws {
        try await withManager { origin, manager in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png")
            let originalKey = try #require(manager.cacheKey(for: url))
            try await manager.cache.store(nil, data: Self.png, forKey: originalKey, cacheType: .disk)
            let originalPath = try #require(manager.imageCache.cachePath(forKey: originalKey))
            let originalBefore = try Data(contentsOf: URL(fileURLWithPath: originalPath))

            let calls = Locked(0)
            var context = ImageContext()
            context.transformer = CornerTransformer(width: 20, height: 15, calls: calls)
            let result = try await manager.loadImage(from: url, options: .waitStoreCache, context: context)

            #expect(origin.totalRequestCount == 0)
            #expect(result.cacheType == .disk)
            #expect(result.data == nil)
            #expect(result.image?.pixelSize == PixelSize(width: 20, height: 15))
            #expect(try result.image?.pixel(x: 5, y: 5) == TestImages.topLeft)
            #expect(calls.withLock { $0 } == 1)
            let transformedKey = try #require(manager.cacheKey(for: url, context: context))
            #expect(transformedKey == CacheKey.transformedKey(originalKey, transformerKey: "Corner(20x15)"))
            #expect(await manager.imageCache.diskCache?.data(forKey: transformedKey) != nil, "stored under the transformed key")
            #expect(manager.cache.imageFromMemory(forKey: originalKey) == nil, "the original is not re-stored")
            let originalAfter = try Data(contentsOf: URL(fileURLWithPath: originalPath))
            #expect(originalAfter == originalBefore, "the original entry stays byte-identical")

            // The next identical request is a memory hit on the transformed key.
            let again = try await manager.loadImage(from: url, context: context)
            #expect(again.cacheType == .memory)
            #expect(calls.withLock { $0 } == 1)
        }
    }

    // The download side: variants share one download and identical ones one transform.
    @Test("50 concurrent requests for 5 variants of one URL: 1 origin request, 5 transforms")
    func variantsShareOneDownloadAndIdenticalOnesOneTransform() async throws {
        try await withManager { origin, manager in
            origin.register("/v.png", .delayed(.milliseconds(200), then: .image(Self.png)))
            let url = origin.url("/v.png")
            let calls = Locked(0)
            let transformers = (1...5).map { CornerTransformer(width: 4 * $0, height: 3 * $0, calls: calls) }
            try await withThrowingTaskGroup(of: PixelSize?.self) { group in
                for index in 0..<50 {
                    var context = ImageContext()
                    context.transformer = transformers[index % 5]
                    group.addTask { try await manager.loadImage(from: url, context: context).image?.pixelSize }
                }
                var sizes: [PixelSize] = []
                for try await size in group { sizes.append(try #require(size)) }
                #expect(Set(sizes) == Set(transformers.map { PixelSize(width: $0.width, height: $0.height) }))
            }
            #expect(origin.requestCount("/v.png") == 1)
            #expect(calls.withLock { $0 } == 5)
            #expect(manager.pipeline.inFlightCount == 0)

            // The original was kept on disk: a sixth variant needs no download.
            let originalKey = try #require(manager.cacheKey(for: url))
            #expect(await eventually { manager.imageCache.diskCache?.containsSync(forKey: originalKey) == true })
            var context = ImageContext()
            context.transformer = CornerTransformer(width: 2, height: 2, calls: calls)
            let sixth = try await manager.loadImage(from: url, context: context)
            #expect(sixth.cacheType == .disk)
            #expect(origin.requestCount("/v.png") == 1)
        }
    }

    @Test("a transform that does not fit fails with invalidTransform and does not block the URL")
    func failingTransformDoesNotBlock() async throws {
        try await withManager { origin, manager in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png")
            var context = ImageContext()
            context.transformer = CornerTransformer(width: 400, height: 300)
            await #expect(throws: ImageError.invalidTransform("corner 400x300 is larger than the \(PixelSize(width: 40, height: 30)) image")) {
                try await manager.loadImage(from: url, context: context)
            }
            #expect(!manager.failedURLs.isBlocked(url))
            let plain = try await manager.loadImage(from: url)
            #expect(plain.image?.pixelSize == PixelSize(width: 40, height: 30))
        }
    }

    @Test("animated images are transformed only with transformAnimatedImage")
    func animatedImagesNeedTheOption() async throws {
        let frames = [try TestImages.quadrants(width: 40, height: 30), try TestImages.gradient(width: 40, height: 30)]
        let gif = try TestImages.encode(try Image.animated(frames: frames, durations: [0.1, 0.1]), as: .gif)
        try await withManager { origin, manager in
            origin.register("/anim.gif", .image(gif, contentType: "image/gif"))
            let url = origin.url("/anim.gif")
            let calls = Locked(0)
            var context = ImageContext()
            context.transformer = CornerTransformer(width: 10, height: 10, calls: calls)
            let untouched = try await manager.loadImage(from: url, options: .fromLoaderOnly, context: context)
            #expect(untouched.image?.frameCount == 2)
            #expect(untouched.image?.pixelSize == PixelSize(width: 40, height: 30))
            #expect(calls.withLock { $0 } == 0)
        }
    }

    @Test("avoidDecodeImage with a transformer is refused with a clear error")
    func avoidDecodeWithTransformerIsRefused() async throws {
        try await withManager { origin, manager in
            var context = ImageContext()
            context.transformer = CornerTransformer(width: 1, height: 1)
            await #expect(throws: ImageError.self) {
                try await manager.loadImage(from: origin.url("/a.png"), options: .avoidDecodeImage, context: context)
            }
            #expect(origin.totalRequestCount == 0)
        }
    }
}
