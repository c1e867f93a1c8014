import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// SDWebImage's own cache test cases (public repository SDWebImage/SDWebImage,
/// `Tests/Tests/SDImageCacheTests.m`, `SDWebImageManagerTests.m`, `SDImageTransformerTests.m`),
/// ported to ``ImageCache`` and ``CacheKey``: the facts are theirs, the code ours.
@Suite("Image cache: SDWebImage's cases")
struct ImageCacheParityTests {
    /// A 3-frame 40×30 animation made from pixels: it has no format of its own.
    static func animation() throws -> Image {
        let frames = try (0..<3).map { try TestImages.gradient(width: 40, height: 30, seed: $0) }
        return try Image.animated(frames: frames, durations: [0.1, 0.2, 0.3], loopCount: 2)
    }

    // SDImageCacheTests.m test42StoreCacheWithImageAndFormatWithoutImageData
    @Test("test42: an image stored without its bytes is encoded in a format that keeps it (animation → GIF)")
    func test42_storeWithoutData() async throws {
        try await withTemporaryDirectory { directory in
            let cache = ImageCache(config: testConfig(directory))
            // Case 1 and 2: a still image with no format → PNG with alpha, JPEG without.
            try await cache.store(try TestImages.halfTransparent(width: 20, height: 20), data: nil, forKey: "k1", cacheType: .disk)
            #expect(ImageFormat(data: try #require(await cache.diskData(forKey: "k1"))) == .png)
            try await cache.store(try TestImages.gradient(width: 20, height: 20), data: nil, forKey: "k2", cacheType: .disk)
            #expect(ImageFormat(data: try #require(await cache.diskData(forKey: "k2"))) == .jpeg)

            // Case 3: an animation with a format that animates is stored in that format.
            let animation = try Self.animation()
            let webp = try VipsCoder.shared.decode(try VipsCoder.shared.encode(animation, options: ImageEncodeOptions(format: .webp, lossless: true)))
            #expect(webp.format == .webp && webp.frameCount == 3)
            try await cache.store(webp, data: nil, forKey: "k3", cacheType: .disk)
            let k3 = try #require(await cache.query(forKey: "k3", cacheType: .disk))
            #expect(ImageFormat(data: try #require(k3.data)) == .webp)
            #expect(k3.image.frameCount == 3)

            // Case 5: an animation without a format is stored as GIF, frames kept (never one
            // JPEG of the frames stacked, 40×90).
            try await cache.store(animation, data: nil, forKey: "k5", cacheType: .disk)
            let k5 = try #require(await cache.query(forKey: "k5", cacheType: .disk))
            #expect(ImageFormat(data: try #require(k5.data)) == .gif)
            #expect(k5.image.frameCount == 3)
            #expect(k5.image.pixelSize == PixelSize(width: 40, height: 30))
            #expect(k5.image.frameDurations.map { ($0 * 10).rounded() / 10 } == [0.1, 0.2, 0.3])
            #expect(k5.image.loopCount == 2)
        }
    }

    @Test("test42 (coders): an image stored without its bytes keeps its format when the cache's coder writes it")
    func test42_storeWithoutDataUsesTheCachesCoder() async throws {
        try await withTemporaryDirectory { directory in
            let coders = ImageCodersManager()
            coders.addCoder(QOICoder())
            let qoi = try coders.decode(try coders.encode(try TestImages.gradient(width: 24, height: 16), options: ImageEncodeOptions(format: .qoi)))
            #expect(qoi.format == .qoi)
            let withQOI = ImageCache(config: testConfig(directory, namespace: "qoi"), coder: coders)
            try await withQOI.store(qoi, data: nil, forKey: "q", cacheType: .disk)
            #expect(ImageFormat(data: try #require(await withQOI.diskData(forKey: "q"))) == .qoi)
            let libvipsOnly = ImageCache(config: testConfig(directory, namespace: "vips"), coder: VipsCoder.shared)
            try await libvipsOnly.store(qoi, data: nil, forKey: "q", cacheType: .disk)
            #expect(ImageFormat(data: try #require(await libvipsOnly.diskData(forKey: "q"))) == .jpeg)
        }
    }

    // SDImageCacheTests.m test14QueryCacheFirstFrameOnlyHitMemoryCache
    @Test("test14: a first-frame-only query of an animation in memory gets a still image")
    func test14_firstFrameOnlyMemoryHit() async throws {
        try await withTemporaryDirectory { directory in
            let cache = ImageCache(config: testConfig(directory))
            let animation = try Self.animation()
            cache.storeToMemory(animation, forKey: "gif")
            let all = try #require(await cache.query(forKey: "gif"))
            #expect(all.cacheType == .memory && all.image.frameCount == 3)
            let first = try #require(await cache.query(forKey: "gif", decodeOptions: ImageDecodeOptions(firstFrameOnly: true)))
            #expect(first.cacheType == .memory)
            #expect(first.image.frameCount == 1)
            #expect(first.image.pixelSize == PixelSize(width: 40, height: 30))
            #expect(try first.image.pixel(x: 5, y: 5) == (try animation.pixel(x: 5, y: 5, frame: 0)))
            // The animation in memory is left as it was.
            #expect(cache.imageFromMemory(forKey: "gif")?.frameCount == 3)
        }
    }

    @Test("test14 (disk side): a first-frame decode of an animation is not kept under the animation's key")
    func test14_firstFrameOnlyDiskHitKeepsMemoryClean() async throws {
        try await withTemporaryDirectory { directory in
            let cache = ImageCache(config: testConfig(directory))
            let gif = try VipsCoder.shared.encode(try Self.animation(), options: ImageEncodeOptions(format: .gif))
            try await cache.store(nil, data: gif, forKey: "gif", cacheType: .disk)
            let first = try #require(await cache.query(forKey: "gif", decodeOptions: ImageDecodeOptions(firstFrameOnly: true)))
            #expect(first.cacheType == .disk && first.image.frameCount == 1)
            #expect(cache.imageFromMemory(forKey: "gif") == nil)
            let all = try #require(await cache.query(forKey: "gif"))
            #expect(all.image.frameCount == 3)
            #expect(cache.imageFromMemory(forKey: "gif")?.frameCount == 3)
        }
    }

    // SDWebImageManagerTests.m test17ThatThumbnailCacheQueryNotWriteToWrongKey
    @Test("test17: a thumbnail query keeps the thumbnail under the thumbnail key, never the full-size key")
    func test17_thumbnailQueryKey() async throws {
        try await withTemporaryDirectory { directory in
            let cache = ImageCache(config: testConfig(directory))
            let full = try TestImages.encode(try TestImages.quadrants(width: 500, height: 500), as: .png)
            let fullKey = "kTestRectangle"
            try await cache.store(nil, data: full, forKey: fullKey, cacheType: .disk)
            let size = PixelSize(width: 100, height: 100)
            let thumbnailKey = CacheKey.thumbnailKey(fullKey, size: size, preserveAspectRatio: true)
            #expect(thumbnailKey == "kTestRectangle-Thumbnail(100x100,1)")

            let hit = try #require(await cache.query(forKey: fullKey, decodeOptions: ImageDecodeOptions(thumbnailPixelSize: size)))
            #expect(hit.image.pixelSize == size)
            #expect(hit.cacheType == .disk)
            #expect(cache.imageFromMemory(forKey: fullKey) == nil)
            #expect(await cache.diskData(forKey: fullKey) == full)
            #expect(cache.imageFromMemory(forKey: thumbnailKey)?.pixelSize == size)
            #expect(await cache.diskData(forKey: thumbnailKey) == nil)

            // The next thumbnail query is a memory hit; a full-size query gets the full size.
            let again = try #require(await cache.query(forKey: fullKey, decodeOptions: ImageDecodeOptions(thumbnailPixelSize: size)))
            #expect(again.cacheType == .memory && again.image.pixelSize == size)
            let fullSize = try #require(await cache.query(forKey: fullKey))
            #expect(fullSize.image.pixelSize == PixelSize(width: 500, height: 500))
        }
    }

    // SDImageTransformerTests.m test10TransformerKeyForCacheKey
    @Test("test10: a transformer key goes before the extension; a leading dot starts none", arguments: [
        ("image.png", "image-SDImageFlippingTransformer(1,0).png"),
        ("image", "image-SDImageFlippingTransformer(1,0)"),
        (".image", ".image-SDImageFlippingTransformer(1,0)"),
        ("image.", "image.-SDImageFlippingTransformer(1,0)"),
        ("Test/image.png", "Test/image-SDImageFlippingTransformer(1,0).png"),
        ("http://foo/image.png", "http://foo/image-SDImageFlippingTransformer(1,0).png"),
        ("http://foo/image", "http://foo/image-SDImageFlippingTransformer(1,0)"),
        ("http://foo/.image", "http://foo/.image-SDImageFlippingTransformer(1,0)"),
        ("http://foo/image.png?foo=bar#mark", "http://foo/image-SDImageFlippingTransformer(1,0).png?foo=bar#mark"),
        ("ftp://root:password@foo.com/image.png", "ftp://root:password@foo.com/image-SDImageFlippingTransformer(1,0).png"),
    ])
    func test10_transformedKey(key: String, expected: String) {
        #expect(CacheKey.transformedKey(key, transformerKey: "SDImageFlippingTransformer(1,0)") == expected)
    }

    @Test("a dot-file has no extension in its disk file name either")
    func dotFileHasNoExtension() {
        #expect(CacheKey.fileExtension(forKey: ".image") == nil)
        #expect(CacheKey.fileExtension(forKey: "http://foo/.image") == nil)
        #expect(CacheKey.fileExtension(forKey: "http://foo/.image-T") == nil)
        #expect(CacheKey.fileExtension(forKey: "http://foo/a.image") == "image")
    }
}
