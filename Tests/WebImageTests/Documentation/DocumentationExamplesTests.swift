import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTestSupport

/// Every call shape README.md's "Using it" shows, written as the README writes it. The
/// compile-time half (`ReadmeCallShapes`) fails the build when a shape stops compiling or
/// a trailing closure binds to something other than the completion (each closure states
/// the type it must get); the run-time half checks where those closures are called.
@Suite("README call shapes")
struct ReadmeCallShapesTests {
    @Test("a trailing closure after setImage and prefetch is the completion, with or without progress:")
    func trailingClosuresAreCompletions() async throws {
        try await BindingFixtures.withManager { origin, manager in
            origin.register("/a.png", .image(BindingFixtures.pngA))
            let url = origin.url("/a.png")
            let tile = RecordingTarget(manager: manager)

            let completed = Completions()
            tile.setImage(with: url, placeholder: BindingFixtures.placeholder) { result in
                completed.handler(result)
            }
            #expect(Completions.size(await completed.final()) == BindingFixtures.sizeA)

            let progressReports = Recorder<Int>()
            let completedWithProgress = Completions()
            tile.setImage(with: origin.url("/a.png?p"), progress: { progressReports.append($0.receivedBytes) }) { result in
                completedWithProgress.handler(result)
            }
            #expect(Completions.size(await completedWithProgress.final()) == BindingFixtures.sizeA)
            #expect(progressReports.count >= 1)

            tile.setImage(with: origin.url("/a.png?none"), placeholder: BindingFixtures.placeholder)
            #expect(await eventually { tile.shownSize == BindingFixtures.sizeA && tile.applied.last?.kind == .final })

            let prefetcher = ImagePrefetcher(manager: manager)
            let prefetched = Recorder<PrefetchResult>()
            prefetcher.prefetch([origin.url("/a.png?1"), origin.url("/a.png?2")]) { result in
                prefetched.append(result)
            }
            #expect(await prefetched.wait(for: 1))
            #expect(prefetched.values.first?.finishedCount == 2)
            let awaited = await prefetcher.prefetch([origin.url("/a.png?3")])
            #expect(awaited.finishedCount == 1)
        }
    }
}

/// The README's snippets, compiled (never run: they name example.com and local files).
enum ReadmeCallShapes {
    final class Tile: ImageTarget {
        private let shown = Mutex<Image?>(nil)
        func apply(_ image: Image?, update: ImageTargetUpdate) {
            shown.withLock { $0 = image }
        }
    }

    static func decodeAndCache() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: "photo.jpg"))
        let coder = VipsCoder.shared
        let thumbnail = try coder.decode(data, options: ImageDecodeOptions(
            thumbnailPixelSize: PixelSize(width: 256, height: 256)
        ))
        print(thumbnail.pixelSize, thumbnail.loadedPixelSize, thumbnail.memoryCost)
        let webp = try coder.encode(thumbnail, options: ImageEncodeOptions(format: .webp, quality: 80, maxFileSize: 20_000))

        var config = CacheConfig()
        config.namespace = "avatars"
        config.maxDiskSize = 512 << 20
        let cache = ImageCache(config: config)
        try await cache.store(thumbnail, data: webp, forKey: "https://example.com/u/42.jpg",
                              metadata: CacheMetadata(etag: "\"v7\""))
        if let hit = await cache.query(forKey: "https://example.com/u/42.jpg") {
            print(hit.cacheType, hit.image.pixelSize)
        }
    }

    static func manager() async throws {
        let manager = ImageManager.shared
        let url = URL(string: "https://example.com/cat.jpg")!
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(width: 512, height: 512)
        let result = try await manager.loadImage(from: url, options: [.retryFailed, .scaleDownLargeImages], context: context)
        print(result.cacheType, result.image?.pixelSize as Any)

        let task = manager.loadImage(with: url, options: .highPriority) { result in
            let _: Result<ImageResult, ImageError> = result
        }
        task.cancel()

        for try await update in manager.results(from: url, options: .refreshCached) {
            print(update.isFinal, update.cacheType)
        }
    }

    static func request(manager: ImageManager, url: URL, fetchAvatarBytes: @escaping @Sendable () async throws(ImageError) -> Data) async throws {
        var request = ImageRequest(url: url)
        request.processing.transformer = ResizeTransformer(size: PixelSize(width: 400, height: 300), mode: .fill)
        let image = try await manager.loadImage(request)
        print(image.cacheType)

        request.output = .encoded(VariantEncoding(format: .fixed(.webp), quality: 75))
        let webp = try await manager.loadVariant(request)
        print(webp.variant.etag, webp.cacheType)
        let avatar = ImageRequest(source: .custom(key: "avatars/42") { () throws(ImageError) -> Data in
            try await fetchAvatarBytes()
        })
        print(try await manager.loadImage(avatar).cacheType)
    }

    static func target(tile: Tile, url: URL, grey: Image) {
        tile.setImage(with: url, placeholder: grey, options: .delayPlaceholder) { result in
            let _: Result<ImageResult, ImageError> = result
        }
        tile.setImage(with: url, placeholder: grey)
        tile.setImage(with: url, progress: { print($0.receivedBytes) }) { result in
            let _: Result<ImageResult, ImageError> = result
        }
        // SDWebImage's sd_setImage(with:placeholderImage:completed:) and sd_setImage(with:completed:).
        tile.setImage(with: url, placeholder: grey) { result in
            let _: Result<ImageResult, ImageError> = result
        }
        tile.setImage(with: url) { result in
            let _: Result<ImageResult, ImageError> = result
        }
        tile.setImage(with: url, progress: nil, completed: nil)
        print(tile.currentImageURL as Any, tile.currentProgress)
        tile.cancelCurrentImageLoad()
    }

    static func prefetcher(manager: ImageManager, urls: [URL], moreURLs: [URL]) async {
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 4)
        let summary = await prefetcher.prefetch(urls)
        print(summary.finishedCount, summary.skippedCount)

        for await step in prefetcher.progress(of: moreURLs) {
            print(step.finishedCount, "/", step.totalCount, step.url, step.outcome)
        }

        let token = prefetcher.prefetch(urls) { result in
            let _: PrefetchResult = result
        }
        token.cancel()
        prefetcher.prefetch(urls, progress: { let _: PrefetchProgress = $0 }) { result in
            let _: PrefetchResult = result
        }
        prefetcher.prefetch(urls, progress: nil, completion: nil)

        var thumbnails = ImageContext()
        thumbnails.thumbnailPixelSize = PixelSize(width: 128, height: 128)
        let own: PrefetchResult = await prefetcher.prefetch(urls, options: [], context: thumbnails)
        print(own.finishedCount)
    }

    static func synchronousPrefetch(prefetcher: ImagePrefetcher, urls: [URL]) {
        // SDWebImage's prefetchURLs: in a synchronous context.
        let token: PrefetchToken = prefetcher.prefetch(urls)
        token.cancel()
    }

    static func extending(
        manager: ImageManager, url: URL, originalsConfig: CacheConfig, bundleLoader: any ImageLoader,
        memoryTier: any ImageMemoryCaching, diskTier: any ImageDiskCaching
    ) async throws {
        ImageCodersManager.shared.addCoder(QOICoder())
        let qoi = try await ImageManager.shared.loadImage(from: URL(string: "https://example.com/a.qoi")!)
        let bytes = try ImageCodersManager.shared.encode(qoi.image!, options: ImageEncodeOptions(format: .qoi))
        print(bytes.count)

        ImageLoadersManager.shared.addLoader(bundleLoader)
        let icon = try await ImageManager.shared.loadImage(from: URL(string: "bundle:///icons/star.png")!)
        print(icon.cacheType)
        print(ImageCache(config: CacheConfig(), memoryTier: memoryTier, diskTier: diskTier).diskCache == nil)

        var local = CacheConfig()
        local.rootDirectory = "/var/cache/images"
        var shared = CacheConfig()
        shared.rootDirectory = "/mnt/nfs/images"
        shared.shouldCacheImagesInMemory = false
        let caches = ImageCachesManager(caches: [ImageCache(config: shared), ImageCache(config: local)])
        let chained = ImageManager(cache: caches)
        print(chained.runningCount)

        var context = ImageContext()
        context.transformer = ResizeTransformer(size: PixelSize(width: 400, height: 300), mode: .fill)
        context.originalCache = ImageCache(config: originalsConfig)
        let variant = try await manager.loadImage(from: url, context: context)
        print(variant.cacheType)
    }
}
