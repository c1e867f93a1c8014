import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// A load's priority through the manager: it follows the loads that join its work, and
/// an ``ImageTask`` can change it while it waits. Told by the order the origin sees the
/// downloads start in, behind a single download slot.
@Suite("Load priority")
struct LoadPriorityTests {
    /// A manager over `downloader` with a fresh cache.
    static func withManager(_ body: (TestOrigin, ImageDownloader, ImageManager) async throws -> Void) async throws {
        try await withOriginAndDownloader(configure: { $0.maxConcurrentDownloads = 1 }) { origin, downloader in
            let cache = TestCaches.make()
            defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
            try await body(origin, downloader, ImageManager(cache: cache, loader: ImageLoaders([downloader])))
        }
    }

    /// Registers a held `/blocker.jpg` that fills the only slot, and `paths` served at
    /// once as images; returns the gate that lets the blocker go.
    static func fillTheOnlySlot(_ origin: TestOrigin, _ downloader: ImageDownloader, then paths: [String]) async throws -> TestOriginGate {
        let gate = TestOriginGate()
        let jpeg = try TestImages.encode(try TestImages.quadrants(width: 32, height: 24), as: .jpeg)
        origin.register("/blocker.jpg", .gated(gate, then: .data(jpeg, contentType: "image/jpeg")))
        for path in paths { origin.register(path, .data(jpeg, contentType: "image/jpeg")) }
        downloader.download(origin.url("/blocker.jpg")) { _ in }
        _ = await gate.waitForArrivals(1)
        return gate
    }

    /// Loads waiting for work another load drives, in the source and image stages.
    static func joinedLoads(_ manager: ImageManager) -> Int {
        manager.pipeline.sources.waiterCount + manager.pipeline.images.all.reduce(0) { $0 + max(0, $1.subscriberCount - 1) }
    }

    // SPEC HT3
    @Test("HT3 a visible load that joins a queued prefetch lifts the prefetch's download ahead of normal ones")
    func loadJoiningAPrefetchRaisesIt() async throws {
        try await Self.withManager { origin, downloader, manager in
            let gate = try await Self.fillTheOnlySlot(origin, downloader, then: ["/feed.jpg", "/other.jpg"])
            let prefetcher = ImagePrefetcher(manager: manager)
            let token: PrefetchToken = prefetcher.prefetch([ImageRequest(url: origin.url("/feed.jpg"), priority: .low)])
            #expect(await eventually { downloader.currentDownloadCount == 2 })
            manager.loadImage(ImageRequest(url: origin.url("/other.jpg")), completion: { _ in })
            #expect(await eventually { downloader.currentDownloadCount == 3 })
            let visible = Task { try await manager.loadImage(ImageRequest(url: origin.url("/feed.jpg"), priority: .high)) }
            #expect(await eventually { Self.joinedLoads(manager) == 1 }, "the visible load joins the prefetch's work")
            #expect(downloader.currentDownloadCount == 3)
            gate.open()
            #expect(try await visible.value.image != nil)
            #expect(await eventually { origin.totalRequestCount == 3 })
            #expect(origin.allRequests.map(\.path) == ["/blocker.jpg", "/feed.jpg", "/other.jpg"])
            #expect(origin.requestCount("/feed.jpg") == 1, "one download for the prefetch and the load")
            token.cancel()
            #expect(await origin.waitForIdle())
        }
    }

    // SPEC HT3
    @Test("HT3 an ImageTask's priority changes while it waits, and its queued download moves with it")
    func taskPriorityChangesWhileWaiting() async throws {
        try await Self.withManager { origin, downloader, manager in
            let gate = try await Self.fillTheOnlySlot(origin, downloader, then: ["/later.jpg", "/other.jpg"])
            let task = manager.loadImage(ImageRequest(url: origin.url("/later.jpg"), priority: .low), completion: { _ in })
            #expect(await eventually { downloader.currentDownloadCount == 2 })
            manager.loadImage(ImageRequest(url: origin.url("/other.jpg")), completion: { _ in })
            #expect(await eventually { downloader.currentDownloadCount == 3 })
            #expect(task.priority == .low)
            task.priority = .high
            #expect(task.priority == .high)
            gate.open()
            #expect(await eventually { origin.totalRequestCount == 3 })
            #expect(origin.allRequests.map(\.path) == ["/blocker.jpg", "/later.jpg", "/other.jpg"])
            #expect(await eventually { task.isFinished })
        }
    }

    // SPEC HT3
    @Test("HT3 without a change, a low load waits behind a normal one (the order the other tests turn round)")
    func lowWaitsBehindNormal() async throws {
        try await Self.withManager { origin, downloader, manager in
            let gate = try await Self.fillTheOnlySlot(origin, downloader, then: ["/later.jpg", "/other.jpg"])
            let task = manager.loadImage(ImageRequest(url: origin.url("/later.jpg"), priority: .low), completion: { _ in })
            #expect(await eventually { downloader.currentDownloadCount == 2 })
            manager.loadImage(ImageRequest(url: origin.url("/other.jpg")), completion: { _ in })
            #expect(await eventually { downloader.currentDownloadCount == 3 })
            gate.open()
            #expect(await eventually { origin.totalRequestCount == 3 })
            #expect(origin.allRequests.map(\.path) == ["/blocker.jpg", "/other.jpg", "/later.jpg"])
            #expect(await eventually { task.isFinished })
        }
    }
}
