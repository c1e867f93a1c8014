import Foundation
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

@Suite("ImageManager")
struct ImageManagerTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 40, height: 30), as: .png)

    /// Runs `body` with a fresh origin, downloader, cache and manager.
    func withManager(
        downloader configureDownloader: (inout DownloaderConfig) -> Void = { _ in },
        defaultContext: ImageContext = ImageContext(),
        optionsProcessor: ImageManager.OptionsProcessor? = nil,
        _ body: (TestOrigin, ImageManager) async throws -> Void
    ) async throws {
        try await withOriginAndDownloader(configure: configureDownloader) { origin, downloader in
            let manager = ImageManager(
                cache: TestCaches.make(), loader: ImageLoaders([downloader, FileLoader(), DataURLLoader()]),
                defaultContext: defaultContext, optionsProcessor: optionsProcessor
            )
            defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
            try await body(origin, manager)
        }
    }

    @Test("M1 a nil or empty URL fails with invalidURL, without network or cache query")
    func M1_invalidURL() async throws {
        let keyFilterCalls = Locked(0)
        var context = ImageContext()
        context.cacheKeyFilter = { url in
            keyFilterCalls.withLock { $0 += 1 }
            return url.absoluteString
        }
        try await withManager(defaultContext: context) { origin, manager in
            await #expect(throws: ImageError.invalidURL("")) { try await manager.loadImage(from: nil) }
            await #expect(throws: ImageError.invalidURL("")) { try await manager.loadImage(from: URL(string: "")) }
            let outcome = Recorder<ImageError?>()
            manager.loadImage(with: nil) { result in
                if case .failure(let error) = result { outcome.append(error) } else { outcome.append(nil) }
            }
            #expect(outcome.values == [.invalidURL("")], "completes before returning")
            #expect(keyFilterCalls.withLock { $0 } == 0, "no cache query")
            // A scheme no loader handles fails too (after the cache, as in SDWebImage).
            let ftp = URL(string: "ftp://example.test/a.png")!
            await #expect(throws: ImageError.invalidURL(ftp.absoluteString)) { try await manager.loadImage(from: ftp) }
            #expect(origin.totalRequestCount == 0)
        }
    }

    @Test("M2 a fresh URL loads with image and data; isRunning while loading")
    func M2_freshLoad() async throws {
        try await withManager { origin, manager in
            // Held until the test has seen the load running, however slow the machine.
            let gate = TestOriginGate()
            origin.register("/a.png", .gated(gate, then: .image(Self.png)))
            let url = origin.url("/a.png")
            #expect(!manager.isRunning)
            async let result = manager.loadImage(from: url)
            #expect(await eventually { manager.isRunning })
            gate.open()
            let loaded = try await result
            #expect(loaded.image?.pixelSize == PixelSize(width: 40, height: 30))
            #expect(loaded.data == Self.png)
            #expect(loaded.cacheType == CacheType.none)
            #expect(loaded.url == url)
            #expect(loaded.isFinal)
            #expect(await eventually { !manager.isRunning })
        }
    }

    @Test("M3 the second load is a memory hit; after clearing memory, a disk hit")
    func M3_cacheHits() async throws {
        try await withManager { origin, manager in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png")
            _ = try await manager.loadImage(from: url, options: .waitStoreCache)
            let memory = try await manager.loadImage(from: url)
            #expect(memory.cacheType == .memory)
            #expect(memory.image?.pixelSize == PixelSize(width: 40, height: 30))
            manager.imageCache.clearMemory()
            let disk = try await manager.loadImage(from: url)
            #expect(disk.cacheType == .disk)
            #expect(disk.data == Self.png)
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test("M4 permanent failures block the URL; retryFailed loads and unblocks")
    func M4_blockingAndRetry() async throws {
        try await withManager(downloader: { $0.idleTimeout = .seconds(2) }) { origin, manager in
            origin.register("/gone.png", .status(404))
            let url = origin.url("/gone.png")
            await #expect(throws: ImageError.invalidStatusCode(404)) { try await manager.loadImage(from: url) }
            await #expect(throws: ImageError.blockedURL(url)) { try await manager.loadImage(from: url) }
            #expect(origin.requestCount("/gone.png") == 1, "blocked without network")

            origin.register("/gone.png", .image(Self.png))
            let retried = try await manager.loadImage(from: url, options: .retryFailed)
            #expect(retried.image != nil)
            #expect(!manager.failedURLs.isBlocked(url))

            origin.register("/garbage.png", .image(Data("not an image at all".utf8)))
            await #expect(throws: ImageError.self) { try await manager.loadImage(from: origin.url("/garbage.png")) }
            #expect(manager.failedURLs.isBlocked(origin.url("/garbage.png")))
            #expect(manager.cache.imageFromMemory(forKey: origin.url("/garbage.png").absoluteString) == nil)
            #expect(await manager.imageCache.diskCount() == 1, "bad data leaves no trace in the cache (only /gone.png is stored)")

            origin.register("/slow.png", .stall)
            await #expect(throws: ImageError.self) { try await manager.loadImage(from: origin.url("/slow.png")) }
            #expect(!manager.failedURLs.isBlocked(origin.url("/slow.png")), "timeouts never block")
            let refused = URL(string: "http://127.0.0.1:1/refused.png")!
            await #expect(throws: ImageError.self) { try await manager.loadImage(from: refused) }
            #expect(!manager.failedURLs.isBlocked(refused), "connection refused never blocks")
            manager.removeAllFailedURLs()
            #expect(!manager.failedURLs.isBlocked(origin.url("/garbage.png")))
        }
    }

    @Test("M5 cacheMemoryOnly writes nothing to disk; waitStoreCache completes after the disk write")
    func M5_storeTypes() async throws {
        try await withManager { origin, manager in
            origin.register("/m.png", .image(Self.png))
            origin.register("/w.png", .image(Self.png))
            _ = try await manager.loadImage(from: origin.url("/m.png"), options: .cacheMemoryOnly)
            try await Task.sleep(for: .milliseconds(200))
            #expect(await manager.imageCache.diskCount() == 0)
            #expect(manager.cache.imageFromMemory(forKey: origin.url("/m.png").absoluteString) != nil)

            let key = origin.url("/w.png").absoluteString
            let onDiskAtCompletion = Recorder<Bool>()
            let cache = manager.imageCache
            manager.loadImage(with: origin.url("/w.png"), options: .waitStoreCache) { _ in
                onDiskAtCompletion.append(cache.diskCache?.containsSync(forKey: key) == true)
            }
            #expect(await onDiskAtCompletion.wait(for: 1))
            #expect(onDiskAtCompletion.values == [true])
        }
    }

    @Test("M6 query cache types, fromCacheOnly and fromLoaderOnly")
    func M6_queryTypes() async throws {
        try await withManager { origin, manager in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png")
            await #expect(throws: ImageError.notInCache(url.absoluteString)) {
                try await manager.loadImage(from: url, options: .fromCacheOnly)
            }
            #expect(origin.requestCount("/a.png") == 0)

            _ = try await manager.loadImage(from: url, options: .waitStoreCache)
            manager.imageCache.clearMemory()
            var memoryOnly = ImageContext()
            memoryOnly.queryCacheType = .memory
            let reloaded = try await manager.loadImage(from: url, context: memoryOnly)
            #expect(reloaded.cacheType == CacheType.none, "a memory-only query misses what is only on disk")
            #expect(origin.requestCount("/a.png") == 2)

            let fromLoader = try await manager.loadImage(from: url, options: .fromLoaderOnly)
            #expect(fromLoader.cacheType == CacheType.none)
            #expect(origin.requestCount("/a.png") == 3)

            manager.imageCache.clearMemory()
            let cached = try await manager.loadImage(from: url, options: .fromCacheOnly)
            #expect(cached.cacheType == .disk)
            #expect(origin.requestCount("/a.png") == 3)
        }
    }

    @Test("memory hits, and disk hits with queryDiskDataSync, complete before loadImage returns")
    func synchronousHits() async throws {
        try await withManager { origin, manager in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png")
            _ = try await manager.loadImage(from: url, options: .waitStoreCache)
            let seen = Recorder<CacheType>()
            manager.loadImage(with: url) { seen.append((try? $0.get().cacheType) ?? .none) }
            #expect(seen.values == [.memory])
            manager.imageCache.clearMemory()
            manager.loadImage(with: url, options: .queryDiskDataSync) { seen.append((try? $0.get().cacheType) ?? .none) }
            #expect(seen.values == [.memory, .disk])
            manager.loadImage(with: url, options: .queryMemoryData) { seen.append((try? $0.get().cacheType) ?? .none) }
            #expect(await seen.wait(for: 3))
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test("M8 the cache key filter maps signed URLs to one key")
    func M8_cacheKeyFilter() async throws {
        var context = ImageContext()
        context.cacheKeyFilter = { url in
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
            let kept = (components.queryItems ?? []).filter { $0.name != "sig" }
            components.queryItems = kept.isEmpty ? nil : kept
            return components.string
        }
        try await withManager(defaultContext: context) { origin, manager in
            origin.register("/a.png", .image(Self.png))
            _ = try await manager.loadImage(from: origin.url("/a.png?sig=111"), options: .waitStoreCache)
            let second = try await manager.loadImage(from: origin.url("/a.png?sig=222"))
            #expect(second.cacheType == .memory)
            #expect(origin.requestCount("/a.png") == 1)
            let key = origin.url("/a.png").absoluteString
            #expect(manager.cacheKey(for: origin.url("/a.png?sig=333")) == key)
            #expect(await manager.cache.diskData(forKey: key) == Self.png)
        }
    }

    @Test("M9 the cache serializer decides the bytes on disk")
    func M9_cacheSerializer() async throws {
        var context = ImageContext()
        context.cacheSerializer = { image, _, _ in
            image.flatMap { try? VipsCoder.shared.encode($0, options: ImageEncodeOptions(format: .webp, quality: 50)) }
        }
        try await withManager(defaultContext: context) { origin, manager in
            origin.register("/a.png", .image(Self.png))
            let url = origin.url("/a.png")
            _ = try await manager.loadImage(from: url, options: .waitStoreCache)
            let stored = try #require(await manager.cache.diskData(forKey: url.absoluteString))
            #expect(ImageFormat(data: stored) == .webp)
            #expect(stored != Self.png)
        }
    }

    @Test("M10 refreshCached revalidates: the cached image at once, then the cached one again on 304 or the new one")
    func M10_refreshCached() async throws {
        let newPNG = try TestImages.encode(try TestImages.quadrants(width: 60, height: 20), as: .png)
        try await withManager { origin, manager in
            let version = Locked("v1")
            origin.register("/a.png", handler: { request in
                let current = version.withLock { $0 }
                let etag = "\"\(current)\""
                if request.header("if-none-match") == etag { return .notModified(headers: [("ETag", etag)]) }
                return .image(current == "v1" ? Self.png : newPNG, headers: [("ETag", etag), ("Last-Modified", "Sun, 22 Nov 2026 00:00:00 GMT")])
            })
            let url = origin.url("/a.png")
            _ = try await manager.loadImage(from: url, options: .waitStoreCache)

            let unchanged = Recorder<ImageResult>()
            let done = Recorder<Bool>()
            manager.loadImage(with: url, options: .refreshCached) { result in
                if case .success(let value) = result { unchanged.append(value) }
                if (try? result.get().isFinal) != false { done.append(true) }
            }
            #expect(await done.wait(for: 1))
            try await Task.sleep(for: .milliseconds(100))
            // The cached image is handed over before the revalidation answers; 304 makes it final.
            #expect(unchanged.values.map(\.isFinal) == [false, true])
            #expect(unchanged.values.map(\.cacheType) == [.memory, .memory])
            #expect(unchanged.values.map { $0.image?.pixelSize } == [PixelSize(width: 40, height: 30), PixelSize(width: 40, height: 30)])
            #expect(origin.lastRequest("/a.png")?.header("if-none-match") == "\"v1\"")
            #expect(origin.lastRequest("/a.png")?.header("if-modified-since") == "Sun, 22 Nov 2026 00:00:00 GMT")

            version.withLock { $0 = "v2" }
            var results: [ImageResult] = []
            for try await result in manager.results(from: url, options: [.refreshCached, .waitStoreCache]) {
                results.append(result)
            }
            #expect(results.map(\.isFinal) == [false, true])
            #expect(results.first?.image?.pixelSize == PixelSize(width: 40, height: 30))
            #expect(results.last?.image?.pixelSize == PixelSize(width: 60, height: 20))
            #expect(results.last?.cacheType == CacheType.none)
            #expect(await manager.cache.diskData(forKey: url.absoluteString) == newPNG)
            #expect(await manager.cache.metadata(forKey: url.absoluteString)?.etag == "\"v2\"")
        }
    }

    @Test("M11 cancelling completes exactly once with cancelled; cancelAll cancels every load")
    func M11_cancellation() async throws {
        try await withManager { origin, manager in
            origin.register("/stall.png", .stall)
            let completions = Recorder<String>()
            let task = manager.loadImage(with: origin.url("/stall.png")) { result in
                completions.append(Self.describe(result))
            }
            #expect(await origin.waitForRequests("/stall.png"))
            task.cancel()
            task.cancel()
            #expect(completions.values == ["cancelled"])

            let swiftTask = Task { try await manager.loadImage(from: origin.url("/stall.png?2")) }
            #expect(await origin.waitForRequests("/stall.png", count: 2))
            swiftTask.cancel()
            await #expect(throws: ImageError.cancelled) { try await swiftTask.value }

            let many = Recorder<String>()
            for index in 0..<5 {
                manager.loadImage(with: origin.url("/stall.png?m\(index)")) { many.append(Self.describe($0)) }
            }
            #expect(await eventually { manager.runningCount == 5 })
            manager.cancelAll()
            #expect(await many.wait(for: 5))
            #expect(many.values.allSatisfy { $0 == "cancelled" })
            #expect(await eventually { !manager.isRunning })
            try await Task.sleep(for: .milliseconds(200))
            #expect(many.count == 5, "no completion runs twice")
            #expect(completions.count == 1)
        }
    }

    @Test("M12 progressiveLoad delivers partial images, never cached, then the final one")
    func M12_progressiveLoad() async throws {
        let jpeg = try TestImages.encode(try TestImages.quadrants(width: 320, height: 240), as: .jpeg, quality: 90, progressive: true)
        // Deterministic: the origin sends the first half of the file and holds the rest until the
        // test has seen a preview; every chunk is reported (no throttling) so the preview of the
        // whole first half is made, whatever the TCP reads look like.
        try await withManager(downloader: { $0.minimumProgressInterval = .zero; $0.idleTimeout = .seconds(120) }) { origin, manager in
            let gate = TestOriginGate()
            origin.register("/p.jpg", TestOriginResponse.image(jpeg, contentType: "image/jpeg").pausing(afterBodyBytes: jpeg.count / 2, until: gate))
            let url = origin.url("/p.jpg")
            var results: [ImageResult] = []
            var cachedDuringPreview = false
            for try await result in manager.results(from: url, options: [.progressiveLoad, .waitStoreCache]) {
                if !result.isFinal {
                    if manager.cache.imageFromMemory(forKey: url.absoluteString) != nil { cachedDuringPreview = true }
                    gate.open()
                }
                results.append(result)
            }
            #expect(results.count >= 2, "at least one preview, then the image: \(results.count)")
            #expect(results.dropLast().allSatisfy { !$0.isFinal && $0.data == nil && $0.image?.pixelSize == PixelSize(width: 320, height: 240) })
            #expect(results.last?.isFinal == true)
            #expect(results.last?.data == jpeg)
            #expect(!cachedDuringPreview, "previews are never cached")
            #expect(manager.cache.imageFromMemory(forKey: url.absoluteString) != nil)
            #expect(await manager.imageCache.diskCount() == 1, "the final image is stored, once")
        }
    }

    @Test("M13 the options processor and per-request cache and loader are honoured")
    func M13_overrides() async throws {
        let processor: ImageManager.OptionsProcessor = { url, options, context in
            if url.path == "/forbidden.png" { return nil }
            var options = options
            if url.path == "/memory.png" { options.insert(.cacheMemoryOnly) }
            return (options, context)
        }
        try await withManager(optionsProcessor: processor) { origin, manager in
            origin.register("/memory.png", .image(Self.png))
            origin.register("/forbidden.png", .image(Self.png))
            _ = try await manager.loadImage(from: origin.url("/memory.png"))
            try await Task.sleep(for: .milliseconds(100))
            #expect(await manager.imageCache.diskCount() == 0)
            await #expect(throws: ImageError.self) { try await manager.loadImage(from: origin.url("/forbidden.png")) }
            #expect(origin.requestCount("/forbidden.png") == 0)

            let otherCache = TestCaches.make()
            defer { try? FileManager.default.removeItem(atPath: otherCache.config.rootDirectory) }
            var context = ImageContext()
            context.cache = otherCache
            context.loader = DataURLLoader()
            let dataURL = URL(string: "data:image/png;base64,\(Self.png.base64EncodedString())")!
            _ = try await manager.loadImage(from: dataURL, options: .waitStoreCache, context: context)
            #expect(otherCache.imageFromMemory(forKey: dataURL.absoluteString) != nil)
            #expect(manager.cache.imageFromMemory(forKey: dataURL.absoluteString) == nil)
            var httpOnly = ImageContext()
            httpOnly.loader = DataURLLoader()
            await #expect(throws: ImageError.invalidURL(origin.url("/memory.png?x").absoluteString)) {
                try await manager.loadImage(from: origin.url("/memory.png?x"), context: httpOnly)
            }
        }
    }

    static func describe(_ result: Result<ImageResult, ImageError>) -> String {
        switch result {
        case .success(let value): "image \(value.cacheType)"
        case .failure(.cancelled): "cancelled"
        case .failure(let error): "\(error)"
        }
    }
}
