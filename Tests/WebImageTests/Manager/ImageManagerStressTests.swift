import Foundation
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

@Suite("ImageManager under load")
struct ImageManagerStressTests {
    @Test("5,000 loads over 200 URLs with a third cancelled: each completes exactly once, nothing leaks")
    func stress() async throws {
        let origin = try await TestOrigin.start()
        let downloader = ImageDownloader(config: DownloaderConfig())
        let cache = TestCaches.make()
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        let manager = ImageManager(cache: cache, loader: downloader)
        let images = try (0..<4).map { try TestImages.encode(try TestImages.gradient(width: 24, height: 16, seed: $0 * 50), as: .png) }
        for index in 0..<200 {
            let response: TestOriginResponse = index % 10 == 9
                ? .status(404)
                : .delayed(.milliseconds(index % 7), then: .image(images[index % 4]))
            origin.register("/s\(index).png", response)
        }

        let loads = 5_000
        let completions = Locked([Int](repeating: 0, count: loads))
        let failures = Locked(0)
        var generator = SystemRandomNumberGenerator()
        var cancelled = 0
        for index in 0..<loads {
            let url = origin.url("/s\(Int.random(in: 0..<200, using: &generator)).png")
            var options: ImageOptions = [.retryFailed]
            if Bool.random(using: &generator) { options.insert(.fromLoaderOnly) }
            let task = manager.loadImage(with: url, options: options) { result in
                completions.withLock { $0[index] += 1 }
                if case .failure(let error) = result, error != .cancelled, error != .invalidStatusCode(404) {
                    failures.withLock { $0 += 1 }
                }
            }
            if Int.random(in: 0..<100, using: &generator) < 33 {
                cancelled += 1
                if Bool.random(using: &generator) {
                    task.cancel()
                } else {
                    let delay = Int.random(in: 0..<15, using: &generator)
                    Task {
                        try? await Task.sleep(for: .milliseconds(delay))
                        task.cancel()
                    }
                }
            }
            if index % 250 == 0 { await Task.yield() }
        }
        #expect(cancelled >= loads * 30 / 100)
        let allCompleted = await eventually(timeout: .seconds(60)) { completions.withLock { !$0.contains(0) } }
        #expect(allCompleted)
        try await Task.sleep(for: .milliseconds(300))
        #expect(completions.withLock { $0.allSatisfy { $0 == 1 } }, "every completion ran exactly once")
        #expect(failures.withLock { $0 } == 0, "only cancellations and the 404s fail")
        #expect(await eventually { !manager.isRunning && downloader.currentDownloadCount == 0 })
        #expect(await origin.waitForIdle())
        await downloader.shutdown()
        try await origin.shutdown()
    }
}
