import Crypto
import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTestSupport

/// The Swift examples of README.md, the DocC articles (`Sources/*/*.docc`) and `docs/*.md`,
/// written here as the documents write them. The compile-time half (`DocumentationExamples`
/// here, `ThumbnailRoute` and `ServerDocumentationExamples` in the server's tests) fails the
/// build when an example stops compiling or a trailing closure binds to something other
/// than the completion (each closure states the type it must get); the run-time half checks
/// where those closures are called, and that every line of every documented example is one
/// of these files' lines, so an example cannot change without its compiled copy.
@Suite("Documentation examples")
struct DocumentationExamplesTests {
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

            // The same with requests.
            let request = ImageRequest(url: origin.url("/a.png?request"))
            let completedRequest = Completions()
            tile.setImage(request, placeholder: BindingFixtures.placeholder) { result in
                completedRequest.handler(result)
            }
            #expect(Completions.size(await completedRequest.final()) == BindingFixtures.sizeA)
            let requestProgress = Recorder<Int>()
            let completedRequestWithProgress = Completions()
            tile.setImage(ImageRequest(url: origin.url("/a.png?request-p")), progress: { requestProgress.append($0.receivedBytes) }) { result in
                completedRequestWithProgress.handler(result)
            }
            #expect(Completions.size(await completedRequestWithProgress.final()) == BindingFixtures.sizeA)
            #expect(requestProgress.count >= 1)
            let prefetchedRequests = Recorder<PrefetchResult>()
            prefetcher.prefetch([ImageRequest(url: origin.url("/a.png?4"))]) { result in
                prefetchedRequests.append(result)
            }
            #expect(await prefetchedRequests.wait(for: 1))
            #expect(prefetchedRequests.values.first?.finishedCount == 1)
            let awaitedRequests = await prefetcher.prefetch([ImageRequest(url: origin.url("/a.png?5"))])
            #expect(awaitedRequests.finishedCount == 1)
        }
    }

    @Test("every line of a documented Swift example is a line of its compiled copy")
    func documentedExamplesAreCompiled() throws {
        let copies = try Self.compiledCopies.map { try String(contentsOf: Self.root.appending(path: $0), encoding: .utf8) }
        let compiled = copies.map(Self.collapsed).joined(separator: "\n")
        var checked = 0
        for document in try Self.documents() {
            let text = try String(contentsOf: Self.root.appending(path: document), encoding: .utf8)
            for block in Self.swiftBlocks(in: text) where !block.contains(where: { $0.contains(".package(url:") }) {
                for line in block {
                    guard let shape = Self.shape(of: line) else { continue }
                    checked += 1
                    #expect(compiled.contains(shape), "\(document): `\(shape)` is in no compiled copy (\(Self.compiledCopies.joined(separator: ", ")))")
                }
            }
        }
        #expect(checked > 100, "only \(checked) example lines found")
    }

    @Test("docs/processing-options.md's signing function gives imgproxy's documented signature")
    func signingExample() {
        let path = "/rs:fit:300:300/plain/http://127.0.0.1:8000/photo.jpg"
        #expect(DocumentationExamples.signature(path: path, hexKey: "736563726574", hexSalt: "68656C6C6F") == "Hb3f-PVR92cMr84gAWafxIPBYk4TGqHdEspH_K3KhGU")
    }

    /// The repository's root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The files holding the compiled copies of the examples.
    static let compiledCopies = [
        "Tests/WebImageTests/Documentation/DocumentationExamplesTests.swift",
        "Tests/WebImageServerTests/UserRouteTests.swift",
        "Tests/WebImageServerTests/ServerDocumentationExamplesTests.swift",
    ]

    /// README.md, docs/*.md and the DocC catalogs' articles.
    static func documents() throws -> [String] {
        var documents = ["README.md"]
        for folder in ["docs", "Sources/WebImage/WebImage.docc", "Sources/WebImageServer/WebImageServer.docc"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: root.appending(path: folder).path)
            documents += names.filter { $0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
        }
        return documents
    }

    /// The lines of each ```swift block.
    static func swiftBlocks(in text: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil {
                if trimmed == "```swift" { current = [] }
            } else if trimmed.hasPrefix("```") {
                blocks.append(current ?? [])
                current = nil
            } else {
                current?.append(String(line))
            }
        }
        return blocks
    }

    /// A line of an example as it is compared: without its comment, without a trailing
    /// closure's body (`{ result in /* … */ }`: the copy states the closure's type), with its
    /// runs of spaces made one; `nil` for a line of comments or closing brackets only.
    static func shape(of line: String) -> String? {
        var text = Substring(line)
        var inString = false
        var previous: Character = " "
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\"", previous != "\\" { inString.toggle() }
            let next = text.index(after: index)
            if !inString, character == "/", next < text.endIndex, text[next] == "/" {
                text = text[..<index]
                break
            }
            previous = character
            index = next
        }
        var shape = String(text)
        if let closure = shape.range(of: "{ result in") { shape = String(shape[..<closure.lowerBound]) }
        shape = collapsed(shape)
        guard !shape.isEmpty, shape.contains(where: { !")]},".contains($0) }) else { return nil }
        return shape
    }

    /// The text with every run of spaces made one and each line trimmed.
    static func collapsed(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
            .joined(separator: "\n")
    }
}

/// The documents' examples, compiled (never run: they name example.com and local files).
enum DocumentationExamples {
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
        let same = try await manager.loadImage(from: url, options: [.retryFailed, .scaleDownLargeImages], context: context)
        print(same.cacheType)

        do {
            var thumbnail = ImageRequest(url: url)
            thumbnail.processing.thumbnailPixelSize = PixelSize(width: 512, height: 512)
            let result = try await manager.loadImage(thumbnail)
            print(result.cacheType, result.image?.pixelSize as Any)
        }

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

    static func requestTarget(tile: Tile, button: Tile, url: URL, grey: Image) {
        var request = ImageRequest(url: url)
        request.processing.thumbnailPixelSize = PixelSize(width: 200, height: 200)
        tile.setImage(request, placeholder: grey) { result in
            let _: Result<ImageResult, ImageError> = result
        }
        tile.setImage(request, placeholder: grey)
        tile.setImage(request, progress: { print($0.receivedBytes) }) { result in
            let _: Result<ImageResult, ImageError> = result
        }
        let task: ImageTask = tile.setImage(request, progress: nil, completed: nil)
        task.cancel()
        print(tile.currentImageURL as Any, tile.currentProgress)
        tile.cancelCurrentImageLoad()

        request.callbackExecutor = .dispatchQueue(.main)
        tile.setImage(request, placeholder: grey)

        let highlighted = ImageTargetOptions(operationKey: "highlighted", placeholderTiming: .onFailure)
        button.setImage(request, placeholder: grey, options: highlighted)
        tile.setImage(request, options: ImageTargetOptions(cancelsPreviousLoad: false, appliesImages: false)) { result in
            let _: Result<ImageResult, ImageError> = result
        }
    }

    static func prefetcher(manager: ImageManager, urls: [URL], moreURLs: [URL]) async throws {
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 4)
        let thumbnails = urls.map { url in
            ImageRequest(url: url, processing: ImageProcessing(thumbnailPixelSize: PixelSize(width: 128, height: 128)), priority: .low)
        }
        let summary = await prefetcher.prefetch(thumbnails)
        print(summary.finishedCount, summary.skippedCount)
        let shown = try await manager.loadImage(thumbnails[0])
        print(shown.cacheType)

        for await step in prefetcher.progress(of: thumbnails) {
            print(step.finishedCount, "/", step.totalCount, step.url, step.outcome)
        }

        let token = prefetcher.prefetch(thumbnails) { result in
            let _: PrefetchResult = result
        }
        token.cancel()
        prefetcher.prefetch(thumbnails, progress: { let _: PrefetchProgress = $0 }) { result in
            let _: PrefetchResult = result
        }
        prefetcher.prefetch(thumbnails, progress: nil, completion: nil)

        let summaryOfURLs = await prefetcher.prefetch(urls)
        print(summaryOfURLs.finishedCount, summaryOfURLs.skippedCount)
        for await step in prefetcher.progress(of: moreURLs) {
            print(step.finishedCount, "/", step.totalCount, step.url, step.outcome)
        }
        let urlToken = prefetcher.prefetch(urls) { result in
            let _: PrefetchResult = result
        }
        urlToken.cancel()
        prefetcher.prefetch(urls, progress: { let _: PrefetchProgress = $0 }) { result in
            let _: PrefetchResult = result
        }
        prefetcher.prefetch(urls, progress: nil, completion: nil)
        let request: ImageRequest = try prefetcher.request(for: urls[0])
        print(request.priority)

        var thumbnailContext = ImageContext()
        thumbnailContext.thumbnailPixelSize = PixelSize(width: 128, height: 128)
        let own: PrefetchResult = await prefetcher.prefetch(urls, options: [], context: thumbnailContext)
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

    static func s3() async throws {
        let s3 = S3ImageLoader(configuration: try .fromEnvironment())
        let minio = S3ImageLoader(configuration: S3Configuration(
            endpoint: "http://127.0.0.1:9000", region: "us-east-1", usesPathStyle: true,
            credentials: AWSCredentials(accessKeyID: "…", secretAccessKey: "…")))
        let manager = ImageManager(loader: ImageLoaders([s3, ImageDownloader.shared]))
        let result = try await manager.loadImage(from: URL(string: "s3://photos/cats/tom.jpg")!)
        print(minio, result.cacheType)
    }

    static func gcs() async throws {
        let key = try GCSServiceAccountKey(json: Data(contentsOf: URL(fileURLWithPath: "/etc/webimage/gcs-key.json")))
        let gcs = GCSImageLoader(configuration: GCSConfiguration(credentials: .serviceAccount(key)))
        let hmac = GCSImageLoader(configuration: GCSConfiguration(credentials: .hmac(AWSCredentials(accessKeyID: "GOOG1…", secretAccessKey: "…"))))
        let emulator = GCSImageLoader(configuration: GCSConfiguration(endpoint: "http://127.0.0.1:4443"))
        let manager = ImageManager(loader: ImageLoaders([gcs, ImageDownloader.shared]))
        let result = try await manager.loadImage(from: URL(string: "gs://photos/cats/tom.jpg")!)
        print(hmac, emulator, result.cacheType)
    }

    static func proxiesAndCertificates() throws {
        var config = DownloaderConfig()
        config.proxy = try DownloaderProxy.fromEnvironment()
        config.proxy = DownloaderProxy(all: try .init(url: "http://user:secret@egress.internal:3128"),
                                       noProxy: NoProxyList("localhost,.internal,10.0.0.0/8"))
        config.tls = try DownloaderTLS(caFile: "/etc/ssl/internal-ca.pem",
                                       clientCertificateFile: "client.pem", clientKeyFile: "client.key")
        config.requestModifier = { request in
            var request = request
            request.method = .POST
            request.body = Data(#"{"size":"large"}"#.utf8)
            request.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            return request
        }
        let downloader = ImageDownloader(config: config)
        print(downloader)
    }

    static func freshness(url: URL) {
        var config = CacheConfig()
        config.freshness = CacheFreshness(defaultMaxAge: .seconds(3600), maxAge: .seconds(86_400), staleWhileRevalidate: .seconds(60))
        let cache = ImageCache(config: config)
        var request = ImageRequest(url: url)
        request.caching.freshness = .always
        print(request.url, cache.config.namespace)
    }

    static func retries(url: URL) {
        var config = DownloaderConfig()
        config.retryPolicy = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(500), maxRetryAfter: .seconds(30))
        let downloader = ImageDownloader(config: config)
        downloader.events.observe { event in
            if case .retrying(let url, let retry, let delay, let reason) = event { print("retry \(retry) of \(url) in \(delay): \(reason)") }
        }
        var request = ImageRequest(url: url)
        request.retryPolicy = .never
        print(request.url, downloader)
    }

    static func priorities(url: URL, manager: ImageManager) {
        var config = DownloaderConfig()
        config.rateLimit = DownloadRateLimit(startsPerSecond: 20, burst: 10)
        let task = manager.loadImage(ImageRequest(url: url, priority: .low)) { _ in }
        task.priority = .high
        print(config.maxConcurrentDownloads)
    }

    static func oneLoad(manager: ImageManager, url: URL) async throws {
        var request = ImageRequest(url: url)
        request.timeout = .seconds(5)
        request.userInfo = ["tenant": "blue"]
        let result = try await manager.loadImage(request)
        if let metrics = result.downloadMetrics { print(result.response?.statusCode ?? 0, metrics.total, metrics.retries) }
    }

    static func alternativeSources(manager: ImageManager, url: URL, mirrorURL: URL, otherCDNURL: URL) async throws {
        var request = ImageRequest(url: url, alternativeSources: [.url(mirrorURL), .url(otherCDNURL)])
        let result = try await manager.loadImage(request)
        print(result.alternativeSourceIndex as Any)
        request.caching.cachesUnderAnsweringSource = true
        print(request.caching.cachesUnderAnsweringSource)
    }

    static func diskEntryMigration() {
        var config = CacheConfig()
        config.diskEntryMigration = DiskEntryMigration { old in
            old.version == 0 ? DiskCacheEntry(data: old.file.dropLast(12), metadata: CacheMetadata()) : nil
        }
        print(config)
    }

    static func resuming() {
        var config = DownloaderConfig()
        config.resumePolicy = ResumePolicy(threshold: 1024 * 1024)
        let downloader = ImageDownloader(config: config)
        downloader.events.observe { event in
            if case .resuming(let url, let fromByte) = event { print("resuming \(url) from byte \(fromByte)") }
        }
        var options = DownloadOptions()
        options.resumePolicy = .never
        print(options.priority, downloader)
    }

    static func servingVariants() {
        let manager = ImageManager(variantWorkLimiter: WorkLimiter(workers: 4, queueSize: 64))
        print(manager.runningCount)
    }

    /// imgproxy's signature of `path` (everything after the signature segment, from its `/`).
    static func signature(path: String, hexKey: String, hexSalt: String, size: Int = 32) -> String {
        func bytes(_ hex: String) -> [UInt8] {
            var result: [UInt8] = []
            var digits = hex.makeIterator()
            while let high = digits.next(), let low = digits.next() {
                result.append(UInt8(String([high, low]), radix: 16)!)
            }
            return result
        }
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: bytes(hexKey)))
        hmac.update(data: bytes(hexSalt))
        hmac.update(data: Data(path.utf8))
        return Data(hmac.finalize()).prefix(size).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func signedURL() {
        let path = "/rs:fit:300:300/plain/http://127.0.0.1:8000/photo.jpg"
        let url = "http://127.0.0.1:8080/" + signature(path: path, hexKey: "736563726574", hexSalt: "68656C6C6F") + path
        print(url)
    }
}
