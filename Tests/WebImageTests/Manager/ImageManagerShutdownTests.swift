import Foundation
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

@Suite("ImageManager shutdown")
struct ImageManagerShutdownTests {
    @Test("continueInBackground loads finish during a graceful shutdown; others are cancelled")
    func continueInBackground() async throws {
        let origin = try await TestOrigin.start()
        let downloader = ImageDownloader(config: DownloaderConfig())
        let cache = TestCaches.make()
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        let manager = ImageManager(cache: cache, loader: downloader)
        // The background load is held at a gate until the shutdown has cancelled the
        // foreground one: it is still running then, however slow the machine.
        let gate = TestOriginGate()
        origin.register("/slow.png", .gated(gate, then: .image(ImageManagerTests.png)))
        origin.register("/stall.png", .stall)
        let outcomes = Recorder<String>()
        manager.loadImage(with: origin.url("/slow.png"), options: .continueInBackground) {
            outcomes.append("background: " + ImageManagerTests.describe($0))
        }
        manager.loadImage(with: origin.url("/stall.png")) { outcomes.append("foreground: " + ImageManagerTests.describe($0)) }
        #expect(await origin.waitForRequests("/stall.png"))
        #expect(await gate.waitForArrivals(1))
        let opener = Task {
            if await outcomes.wait(for: 1) { gate.open() }
        }
        await manager.shutdown(gracePeriod: .seconds(120))
        await opener.value
        #expect(outcomes.values == ["foreground: cancelled", "background: image none"])
        #expect(!manager.isRunning)

        manager.loadImage(with: origin.url("/stall.png?2"), options: .continueInBackground) {
            outcomes.append("late: " + ImageManagerTests.describe($0))
        }
        #expect(await origin.waitForRequests("/stall.png", count: 2))
        await manager.shutdown(gracePeriod: .milliseconds(200))
        #expect(outcomes.values.last == "late: cancelled", "the grace period ends")
        await downloader.shutdown()
        try await origin.shutdown()
    }
}
