import Foundation
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

/// SDWebImage's own manager behaviour (public repository SDWebImage/SDWebImage:
/// `SDWebImage/Core/SDWebImageManager.m` and `Tests/Tests/SDWebImageManagerTests.m`),
/// ported to ``ImageManager``: the facts are theirs, the code ours.
extension ImageManagerTests {
    // SDWebImageManager.m, callCacheProcessForOperation → the refreshCached branch: the
    // cached image is handed to the completion block at once, then the download revalidates.
    @Test("refreshCached hands the cached image over at once, before the revalidation answers")
    func refreshCachedDeliversCachedImageAtOnce() async throws {
        let newPNG = try TestImages.encode(try TestImages.quadrants(width: 60, height: 20), as: .png)
        try await withManager { origin, manager in
            // Request 0 fills the cache; the revalidations are held at a gate each.
            let gates = [TestOriginGate(), TestOriginGate()]
            let served = Locked(0)
            origin.register("/r.png", handler: { _ in
                let index = served.withLock { count in defer { count += 1 }; return count }
                switch index {
                case 0: return .image(Self.png, headers: [("ETag", "\"v1\"")])
                case 1: return .gated(gates[0], then: .notModified(headers: [("ETag", "\"v1\"")]))
                default: return .gated(gates[1], then: .image(newPNG, headers: [("ETag", "\"v2\"")]))
                }
            })
            let url = origin.url("/r.png")
            _ = try await manager.loadImage(from: url, options: .waitStoreCache)

            for (round, gate) in gates.enumerated() {
                let fromDisk = round == 1
                if fromDisk { manager.imageCache.clearMemory() }
                let results = Recorder<ImageResult>()
                let done = Recorder<Bool>()
                manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache]) { result in
                    if case .success(let value) = result { results.append(value) }
                    if (try? result.get().isFinal) != false { done.append(true) }
                }
                // The origin holds the revalidation; the cached image is there already.
                #expect(await gate.waitForArrivals(1))
                #expect(await results.wait(for: 1))
                #expect(results.values.first?.isFinal == false)
                #expect(results.values.first?.cacheType == (fromDisk ? .disk : .memory))
                #expect(results.values.first?.image?.pixelSize == PixelSize(width: 40, height: 30))
                #expect(done.count == 0)
                gate.open()
                #expect(await done.wait(for: 1))
                #expect(results.values.map(\.isFinal) == [false, true])
                // 304: the cached image again, final; 200: the new image.
                #expect(results.values.last?.image?.pixelSize == (fromDisk ? PixelSize(width: 60, height: 20) : PixelSize(width: 40, height: 30)))
                #expect(results.values.last?.cacheType == (fromDisk ? CacheType.none : .memory))
            }
            #expect(origin.requestCount("/r.png") == 3)
        }
    }

    // SDImageCacheTests.m test14QueryCacheFirstFrameOnlyHitMemoryCache, through the manager
    @Test("test14: decodeFirstFrameOnly gets a still image from an animation in memory, on both load paths")
    func test14_firstFrameOnlyMemoryHit() async throws {
        try await withManager { origin, manager in
            let url = origin.url("/anim.gif")
            let animation = try ImageCacheParityTests.animation()
            manager.cache.storeToMemory(animation, forKey: try #require(manager.cacheKey(for: url)))

            let still = try await manager.loadImage(from: url, options: .decodeFirstFrameOnly)
            #expect(still.cacheType == .memory)
            #expect(still.image?.frameCount == 1)
            let all = try await manager.loadImage(from: url)
            #expect(all.image?.frameCount == 3)

            let callback = Recorder<Int>()
            manager.loadImage(with: url, options: .decodeFirstFrameOnly) { result in
                callback.append((try? result.get().image?.frameCount) ?? -1)
            }
            #expect(callback.values == [1], "a memory hit completes before the call returns")
            #expect(origin.totalRequestCount == 0)
        }
    }

    @Test("test14: a first-frame-only download is not kept in memory under the animation's key")
    func test14_firstFrameOnlyDownloadKeepsMemoryClean() async throws {
        try await withManager { origin, manager in
            let gif = try VipsCoder.shared.encode(try ImageCacheParityTests.animation(), options: ImageEncodeOptions(format: .gif))
            origin.register("/a.gif", .image(gif, contentType: "image/gif"))
            let url = origin.url("/a.gif")
            let still = try await manager.loadImage(from: url, options: [.decodeFirstFrameOnly, .waitStoreCache])
            #expect(still.image?.frameCount == 1)
            let all = try await manager.loadImage(from: url)
            #expect(all.cacheType == .disk)
            #expect(all.image?.frameCount == 3)
            #expect(origin.requestCount("/a.gif") == 1)
        }
    }

    // SDWebImageManagerTests.m test19ThatDifferentThumbnailLoadShouldCallbackDifferentSize
    @Test("test19: thumbnail loads of one URL share one download, each gets its own size and no data")
    func test19_differentThumbnailSizesShareOneDownload() async throws {
        try await withManager { origin, manager in
            let gate = TestOriginGate()
            let png = try TestImages.encode(try TestImages.quadrants(width: 501, height: 501), as: .png)
            origin.register("/501.png", .gated(gate, then: .image(png)))
            let url = origin.url("/501.png")
            let results = Recorder<(Int, ImageResult)>()
            for side in 490..<500 {
                var context = ImageContext()
                context.thumbnailPixelSize = PixelSize(width: side, height: side)
                manager.loadImage(with: url, context: context) { result in
                    if case .success(let value) = result { results.append((side, value)) }
                }
            }
            #expect(await gate.waitForArrivals(1))
            #expect(await eventually { manager.runningCount == 10 })
            gate.open()
            #expect(await results.wait(for: 10))
            for (side, result) in results.values {
                #expect(result.image?.pixelSize == PixelSize(width: side, height: side))
                #expect(result.data == nil, "a thumbnail is no longer the downloaded bytes")
                #expect(result.cacheType == CacheType.none)
                #expect(result.isFinal)
            }
            #expect(origin.requestCount("/501.png") == 1)
        }
    }

    // SDWebImageManagerTests.m test18ThatThumbnailLoadingCanUseFullSizeCache: the same load
    // served from the cached original also has no data.
    @Test("test18/19: a thumbnail has no data whether it was downloaded or made from the cached original")
    func thumbnailDataIsNilEitherWay() async throws {
        try await withManager { origin, manager in
            origin.register("/t.png", .image(Self.png))
            let url = origin.url("/t.png")
            var context = ImageContext()
            context.thumbnailPixelSize = PixelSize(width: 20, height: 20)
            let downloaded = try await manager.loadImage(from: url, options: .waitStoreCache, context: context)
            #expect(downloaded.cacheType == CacheType.none && downloaded.data == nil)
            context.thumbnailPixelSize = PixelSize(width: 10, height: 10)
            let fromOriginal = try await manager.loadImage(from: url, options: .waitStoreCache, context: context)
            #expect(fromOriginal.cacheType == .disk && fromOriginal.data == nil)
            #expect(origin.requestCount("/t.png") == 1)
            // A plain load still returns the downloaded bytes.
            let plain = try await manager.loadImage(from: origin.url("/t.png?plain"))
            #expect(plain.data == Self.png)
        }
    }

    // SDWebImageDefine.h SDWebImageContextOriginalImageCache
    @Test("originalCache: a variant's original goes to and comes from the original cache")
    func originalCacheHoldsOriginals() async throws {
        try await withManager { origin, manager in
            origin.register("/o.png", .image(Self.png))
            let url = origin.url("/o.png")
            let originals = TestCaches.make()
            defer { try? FileManager.default.removeItem(atPath: originals.config.rootDirectory) }
            var context = ImageContext()
            context.originalCache = originals
            context.transformer = ResizeTransformer(size: PixelSize(width: 20, height: 15), mode: .fit)
            let first = try await manager.loadImage(from: url, options: .waitStoreCache, context: context)
            #expect(first.image?.pixelSize == PixelSize(width: 20, height: 15))
            let originalKey = url.absoluteString
            let variantKey = try #require(manager.cacheKey(for: url, context: context))
            #expect(await originals.diskData(forKey: originalKey) == Self.png)
            #expect(await originals.diskData(forKey: variantKey) == nil)
            #expect(await manager.cache.diskData(forKey: originalKey) == nil)
            #expect(await manager.cache.diskData(forKey: variantKey) != nil)

            // Another variant is made from the original cache, without a download.
            context.transformer = ResizeTransformer(size: PixelSize(width: 10, height: 10), mode: .fill)
            let second = try await manager.loadImage(from: url, options: .waitStoreCache, context: context)
            #expect(second.cacheType == .disk)
            #expect(second.image?.pixelSize == PixelSize(width: 10, height: 10))
            #expect(origin.requestCount("/o.png") == 1)
        }
    }
}
