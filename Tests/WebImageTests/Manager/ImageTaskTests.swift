import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// `ImageTask` is a handle; `loadImage(from:)` runs on its caller's executor until it
/// must wait.
extension ImageManagerTests {
    @Test("a copy of an ImageTask cancels the same load, once; a memory hit's task has nothing to cancel")
    func imageTaskIsAHandle() async throws {
        try await withManager { origin, manager in
            origin.register("/stall.png", .stall)
            let completions = Recorder<String>()
            let task = manager.loadImage(with: origin.url("/stall.png")) { completions.append(Self.describe($0)) }
            let copy = task
            #expect(await origin.waitForRequests("/stall.png"))
            #expect(manager.runningCount == 1 && !task.isFinished)
            copy.cancel()
            #expect(task.isCancelled && task.isFinished, "the original sees the copy's cancel")
            task.cancel()
            #expect(completions.values == ["cancelled"])
            #expect(await eventually { !manager.isRunning })

            let url = origin.url("/hit.png")
            manager.cache.storeToMemory(try TestImages.quadrants(width: 8, height: 8), forKey: try #require(manager.cacheKey(for: url)))
            let hits = Recorder<String>()
            let hit = manager.loadImage(with: url) { hits.append(Self.describe($0)) }
            #expect(hits.values == ["image memory"], "a memory hit completes before loadImage returns")
            hit.cancel()
            #expect(hit.isFinished && !hit.isCancelled && hits.count == 1)
            #expect(manager.runningCount == 0, "a hit is never registered as running")
        }
    }

    /// An actor that loads through the manager from its own executor.
    actor IsolatedLoader {
        let manager: ImageManager
        var loads = 0

        init(manager: ImageManager) { self.manager = manager }

        func load(_ url: URL) async throws(ImageError) -> ImageResult {
            let result = try await manager.loadImage(from: url)
            // Back on this actor after the load, whichever path it took.
            loads += 1
            return result
        }
    }

    @Test("loadImage(from:) called from an actor: hits, loads and cancellations all complete")
    func loadFromActor() async throws {
        try await withManager { origin, manager in
            origin.register("/a.png", .image(Self.png))
            origin.register("/stall.png", .stall)
            let loader = IsolatedLoader(manager: manager)
            let url = origin.url("/a.png")
            let loaded = try await loader.load(url)
            let hit = try await loader.load(url)
            #expect(loaded.cacheType == CacheType.none)
            #expect(hit.cacheType == .memory)
            #expect(await loader.loads == 2)

            let stalled = Task { try await loader.load(origin.url("/stall.png")) }
            #expect(await origin.waitForRequests("/stall.png"))
            stalled.cancel()
            await #expect(throws: ImageError.cancelled) { try await stalled.value }
            #expect(await eventually { !manager.isRunning })
            #expect(await loader.loads == 2, "a cancelled load does not return to the caller's code")
        }
    }
}
