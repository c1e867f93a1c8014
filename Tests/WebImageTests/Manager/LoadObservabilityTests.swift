import Foundation
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

/// What one load tells and bounds of itself: a timeout of its own, values of the caller's
/// that reach its loader, and the metrics of its download.
@Suite("Load observability")
struct LoadObservabilityTests {
    static let jpeg: Data = try! TestImages.encode(try! TestImages.quadrants(width: 32, height: 24), as: .jpeg)

    /// A manager over `downloader` with a fresh cache.
    static func withManager(_ body: (TestOrigin, ImageDownloader, ImageManager) async throws -> Void) async throws {
        try await withOriginAndDownloader { origin, downloader in
            let cache = TestCaches.make()
            defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
            try await body(origin, downloader, ImageManager(cache: cache, loader: ImageLoaders([downloader])))
        }
    }

    @Test("a request's timeout fails its load with timedOut and stops a download nobody else waits for")
    func timeoutEndsTheLoad() async throws {
        try await Self.withManager { origin, downloader, manager in
            origin.register("/silent.jpg", .stall)
            var request = ImageRequest(url: origin.url("/silent.jpg"))
            request.timeout = .milliseconds(200)
            await #expect(throws: ImageError.timedOut("the load of \(origin.url("/silent.jpg").absoluteString) took longer than 0.2 seconds")) {
                try await manager.loadImage(request)
            }
            // However far the download got on a loaded machine, it ends and leaves nothing open.
            #expect(await eventually { downloader.currentDownloadCount == 0 && origin.inFlightCount == 0 }, "the download was closed")
            request.output = .encoded(VariantEncoding(format: .fixed(.png)))
            await #expect(throws: ImageError.timedOut("the load of \(origin.url("/silent.jpg").absoluteString) took longer than 0.2 seconds")) {
                try await manager.loadVariant(request)
            }
            #expect(await eventually { downloader.currentDownloadCount == 0 && origin.inFlightCount == 0 })
        }
    }

    @Test("a load that timed out leaves the download another load waits for")
    func timeoutLeavesSharedWork() async throws {
        try await Self.withManager { origin, downloader, manager in
            let gate = TestOriginGate()
            origin.register("/slow.jpg", .gated(gate, then: .image(Self.jpeg, contentType: "image/jpeg")))
            let patient = Task { try await manager.loadImage(ImageRequest(url: origin.url("/slow.jpg"))) }
            _ = await gate.waitForArrivals(1)
            var hasty = ImageRequest(url: origin.url("/slow.jpg"))
            hasty.timeout = .milliseconds(100)
            await #expect(throws: ImageError.self) { try await manager.loadImage(hasty) }
            gate.open()
            let result = try await patient.value
            #expect(result.image != nil)
            #expect(origin.requestCount("/slow.jpg") == 1 && origin.totalAbortedCount == 0)
        }
    }

    @Test("a request's userInfo reaches its loader")
    func userInfoReachesTheLoader() async throws {
        let seen = Locked<[String]>([])
        let loader = UserInfoRecordingLoader { options in seen.withLock { $0.append(options.userInfo["tenant"] as? String ?? "none") } }
        let cache = TestCaches.make()
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        let manager = ImageManager(cache: cache, loader: loader)
        var request = ImageRequest(url: URL(string: "memory://a.jpg")!)
        request.userInfo = ["tenant": "blue"]
        _ = try await manager.loadImage(request)
        #expect(seen.withLock { $0 } == ["blue"])
    }

    @Test("a loaded result carries its response and download metrics; a cache hit carries neither, and says its tier")
    func resultsCarryTheirResponse() async throws {
        try await Self.withManager { origin, _, manager in
            origin.register("/a.jpg", .image(Self.jpeg, contentType: "image/jpeg", headers: [("ETag", "\"a\"")]))
            let url = origin.url("/a.jpg")
            let loaded = try await manager.loadImage(ImageRequest(url: url))
            #expect(loaded.cacheType == .none && loaded.response?.statusCode == 200)
            #expect(loaded.response?.headers.first(name: "etag") == "\"a\"")
            #expect(loaded.downloadMetrics?.bytes == Self.jpeg.count && loaded.downloadMetrics?.retries == 0)
            let hit = try await manager.loadImage(ImageRequest(url: url))
            #expect(hit.cacheType == .memory && hit.response == nil && hit.downloadMetrics == nil)

            origin.register("/b.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let variantRequest = ImageRequest(url: origin.url("/b.jpg"), output: .encoded(VariantEncoding(format: .fixed(.png))))
            let made = try await manager.loadVariant(variantRequest)
            #expect(made.cacheType == .none && made.response?.statusCode == 200 && made.downloadMetrics?.bytes == Self.jpeg.count)
            let cached = try await manager.loadVariant(variantRequest)
            #expect(cached.cacheType == .memory && cached.response == nil && cached.downloadMetrics == nil)
        }
    }

    @Test("a download's metrics count its bytes, redirects and retries, and its phases add up")
    func downloadMetrics() async throws {
        let clock = InstantClock()
        try await withOriginAndDownloader(configure: { $0.retryClock = clock }) { origin, downloader in
            origin.register("/moved.jpg", .redirect(to: "/busy.jpg"))
            origin.registerFailing("/busy.jpg", times: 1, with: .status(503), then: .image(Self.jpeg, contentType: "image/jpeg"))
            let response = try await downloader.load(origin.url("/moved.jpg"))
            let metrics = try #require(response.metrics)
            #expect(metrics.bytes == Self.jpeg.count)
            #expect(metrics.redirects == 1 && metrics.retries == 1)
            #expect(metrics.total == metrics.queueing + metrics.waitingForResponse + metrics.receivingBody)
            #expect(metrics.queueing >= .zero && metrics.waitingForResponse > .zero && metrics.receivingBody >= .zero)
            origin.register("/plain.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let plain = try #require(try await downloader.load(origin.url("/plain.jpg")).metrics)
            #expect(plain.redirects == 0 && plain.retries == 0 && plain.bytes == Self.jpeg.count)
        }
    }
}

/// A loader of `memory://` URLs that answers with a JPEG and tells `record` the options
/// of each load.
private struct UserInfoRecordingLoader: ImageLoader {
    let record: @Sendable (DownloadOptions) -> Void

    func canLoad(_ url: URL) -> Bool { url.scheme == "memory" }

    func load(_ url: URL, options: DownloadOptions, progress: (@Sendable (DownloadProgress) -> Void)?) async throws(ImageError) -> DownloadResponse {
        record(options)
        return DownloadResponse.whole(LoadObservabilityTests.jpeg, from: url, mediaType: "image/jpeg", options: options, progress: progress)
    }
}
