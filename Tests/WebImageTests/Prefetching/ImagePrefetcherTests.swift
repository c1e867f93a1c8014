import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImagePrefetcher")
struct ImagePrefetcherTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 16, height: 12), as: .png)

    /// Runs `body` with a fresh origin, downloader, cache and manager.
    func withManager(
        downloader configureDownloader: (inout DownloaderConfig) -> Void = { _ in },
        _ body: (TestOrigin, ImageManager) async throws -> Void
    ) async throws {
        try await withOriginAndDownloader(configure: configureDownloader) { origin, downloader in
            let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([downloader, FileLoader(), DataURLLoader()]))
            defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
            try await body(origin, manager)
        }
    }

    /// Registers `count` images `/p0.png`… (each answered after `delay`, or when `gate` opens)
    /// and returns their URLs.
    func images(
        _ origin: TestOrigin, count: Int, prefix: String = "p", delay: Duration = .zero, gate: TestOriginGate? = nil
    ) -> [URL] {
        (0..<count).map { index in
            let path = "/\(prefix)\(index).png"
            var response: TestOriginResponse = .image(Self.png)
            if delay != .zero { response = .delayed(delay, then: response) }
            if let gate { response = .gated(gate, then: response) }
            origin.register(path, response)
            return origin.url(path)
        }
    }

    @Test("P1 progress rises one by one to the total; completion reports (finished, skipped)")
    func P1_progressAndCompletion() async throws {
        try await withManager { origin, manager in
            var urls = images(origin, count: 8)
            // Two failures: a 404 and an HTML page.
            origin.register("/page.html", .html("<html><body>not an image</body></html>"))
            urls.insert(origin.url("/missing.png"), at: 3)
            urls.append(origin.url("/page.html"))
            let prefetcher = ImagePrefetcher(manager: manager)
            let reports = Recorder<PrefetchProgress>()
            let completions = Recorder<PrefetchResult>()
            prefetcher.prefetch(urls, progress: { reports.append($0) }, completion: { completions.append($0) })
            #expect(await completions.wait(for: 1))
            #expect(completions.values == [PrefetchResult(finishedCount: 10, skippedCount: 2, totalCount: 10)])
            #expect(reports.values.map(\.finishedCount) == Array(1...10))
            #expect(reports.values.allSatisfy { $0.totalCount == 10 })
            #expect(reports.values.last?.skippedCount == 2)
            let failed = Set(reports.values.filter { if case .failure = $0.outcome { true } else { false } }.map(\.url))
            #expect(failed == [origin.url("/missing.png"), origin.url("/page.html")])
            // Every image is cached: a second prefetch is all memory hits, no request.
            origin.resetCounters()
            let again = await prefetcher.prefetch(Array(urls.prefix(3)))
            #expect(again == PrefetchResult(finishedCount: 3, skippedCount: 0, totalCount: 3))
            #expect(origin.totalRequestCount == 0)
        }
    }

    @Test("P1 an empty list completes at once with (0, 0)")
    func P1_emptyList() async throws {
        try await withManager { origin, manager in
            let prefetcher = ImagePrefetcher(manager: manager)
            let completions = Recorder<PrefetchResult>()
            let reports = Recorder<PrefetchProgress>()
            let token = prefetcher.prefetch([URL](), progress: { reports.append($0) }, completion: { completions.append($0) })
            #expect(completions.values == [PrefetchResult(finishedCount: 0, skippedCount: 0, totalCount: 0)], "before prefetch returns")
            #expect(reports.count == 0)
            #expect(token.isFinished)
            #expect(await prefetcher.prefetch([URL]()) == PrefetchResult(finishedCount: 0, skippedCount: 0, totalCount: 0))
            var streamed = 0
            for await _ in prefetcher.progress(of: [URL]()) { streamed += 1 }
            #expect(streamed == 0)
            #expect(origin.totalRequestCount == 0)
        }
    }

    @Test("P2 at most maxConcurrentPrefetchCount loads in flight, over concurrent prefetches")
    func P2_concurrencyLimit() async throws {
        try await withManager { origin, manager in
            // Every response waits at a gate: the first three loads reach it, and no fourth may
            // start while they are held, however fast or slow the machine is.
            let gate = TestOriginGate()
            let first = images(origin, count: 9, prefix: "a", gate: gate)
            let second = images(origin, count: 6, prefix: "b", gate: gate)
            let prefetcher = ImagePrefetcher(manager: manager)
            #expect(prefetcher.maxConcurrentPrefetchCount == 3)
            async let one = prefetcher.prefetch(first)
            async let two = prefetcher.prefetch(second)
            #expect(await gate.waitForArrivals(3))
            try await Task.sleep(for: .milliseconds(300))
            #expect(gate.arrivals == 3, "a fourth load started while three were in flight")
            #expect(prefetcher.inFlightCount == 3)
            gate.open()
            let (a, b) = await (one, two)
            #expect(a == PrefetchResult(finishedCount: 9, skippedCount: 0, totalCount: 9))
            #expect(b == PrefetchResult(finishedCount: 6, skippedCount: 0, totalCount: 6))
            #expect(origin.totalRequestCount == 15)
            #expect(origin.maxConcurrentRequests == 3)
            #expect(prefetcher.inFlightCount == 0)

            // A limit of 1 is one at a time.
            origin.resetCounters()
            let serial = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 1)
            let third = images(origin, count: 4, prefix: "c", delay: .milliseconds(20))
            #expect(await serial.prefetch(third).finishedCount == 4)
            #expect(origin.maxConcurrentRequests == 1)
        }
    }

    @Test("P2 cancel stops the rest and cancels the loads in flight; a second prefetch is left running")
    func P2_cancel() async throws {
        try await withManager { origin, manager in
            let stalled = (0..<10).map { index in
                let path = "/s\(index).png"
                origin.register(path, .stall(afterBodyBytes: 10, of: .image(Self.png)))
                return origin.url(path)
            }
            let other = images(origin, count: 4, prefix: "o", delay: .milliseconds(200))
            let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 2)
            let completions = Recorder<PrefetchResult>()
            let token = prefetcher.prefetch(stalled, completion: { completions.append($0) })
            #expect(await origin.waitUntil { $0.totalRequestCount == 2 })
            // The second prefetch queues behind the first's URLs.
            let otherCompletions = Recorder<PrefetchResult>()
            prefetcher.prefetch(other, completion: { otherCompletions.append($0) })
            token.cancel()
            #expect(completions.values == [PrefetchResult(finishedCount: 0, skippedCount: 0, totalCount: 10, isCancelled: true)])
            #expect(token.isCancelled)
            // The two stalled transfers were stopped.
            #expect(await origin.waitUntil { $0.totalAbortedCount == 2 })
            // The second prefetch runs to its end; none of the first's other URLs was asked for.
            #expect(await otherCompletions.wait(for: 1))
            #expect(otherCompletions.values == [PrefetchResult(finishedCount: 4, skippedCount: 0, totalCount: 4)])
            #expect(stalled.reduce(0) { $0 + origin.requestCount($1.path) } == 2)
            token.cancel()
            #expect(completions.count == 1, "a second cancel does nothing")
        }
    }

    @Test("P2 a concurrent second prefetch does not cancel the first")
    func P2_secondPrefetchKeepsFirst() async throws {
        try await withManager { origin, manager in
            let first = images(origin, count: 5, prefix: "x", delay: .milliseconds(30))
            let second = images(origin, count: 5, prefix: "y", delay: .milliseconds(30))
            let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 4)
            let firstToken = prefetcher.prefetch(first, progress: nil, completion: nil)
            let secondResult = await prefetcher.prefetch(second)
            #expect(secondResult == PrefetchResult(finishedCount: 5, skippedCount: 0, totalCount: 5))
            #expect(await eventually { firstToken.isFinished })
            #expect(!firstToken.isCancelled)
            #expect(firstToken.result == PrefetchResult(finishedCount: 5, skippedCount: 0, totalCount: 5))
            #expect(origin.totalRequestCount == 10)
        }
    }

    @Test("P2 cancelling the awaiting task cancels the prefetch; ending a progress stream early cancels it too")
    func P2_asyncCancellation() async throws {
        try await withManager { origin, manager in
            let stalled = (0..<6).map { index in
                let path = "/t\(index).png"
                origin.register(path, .stall(afterBodyBytes: 10, of: .image(Self.png)))
                return origin.url(path)
            }
            let prefetcher = ImagePrefetcher(manager: manager)
            let task = Task { await prefetcher.prefetch(stalled) }
            #expect(await origin.waitUntil { $0.totalRequestCount == 3 })
            task.cancel()
            let result = await task.value
            #expect(result == PrefetchResult(finishedCount: 0, skippedCount: 0, totalCount: 6, isCancelled: true))
            #expect(await origin.waitUntil { $0.totalAbortedCount == 3 })

            // A stream: two quick images, then stalled ones; stop after the first two reports.
            origin.resetCounters()
            let quick = images(origin, count: 2, prefix: "q")
            var counts: [Int] = []
            for await report in prefetcher.progress(of: quick + Array(stalled.prefix(3))) {
                counts.append(report.finishedCount)
                if counts.count == 2 { break }
            }
            #expect(counts == [1, 2])
            #expect(await eventually { prefetcher.inFlightCount == 0 }, "the stalled loads were cancelled")
        }
    }

    @Test("P1 the progress stream reports every URL with its cache type")
    func P1_stream() async throws {
        try await withManager { origin, manager in
            let urls = images(origin, count: 5)
            let prefetcher = ImagePrefetcher(manager: manager, options: .waitStoreCache)
            var reports: [PrefetchProgress] = []
            for await report in prefetcher.progress(of: urls) { reports.append(report) }
            #expect(reports.map(\.finishedCount) == [1, 2, 3, 4, 5])
            #expect(Set(reports.map(\.url)) == Set(urls))
            #expect(reports.allSatisfy { (try? $0.outcome.get()) == CacheType.none })
            // From disk in a new process: clear memory, prefetch again.
            manager.imageCache.clearMemory()
            var cacheTypes: [CacheType] = []
            for await report in prefetcher.progress(of: urls) { cacheTypes.append(try report.outcome.get()) }
            #expect(cacheTypes == Array(repeating: .disk, count: 5))
        }
    }

    // Low priority: prefetches wait behind the loads someone is waiting for.
    @Test("P2 prefetch loads run at low priority")
    func P2_lowPriority() async throws {
        try await withOriginAndDownloader(configure: { $0.maxConcurrentDownloads = 1 }) { origin, downloader in
            let manager = ImageManager(cache: TestCaches.make(), loader: downloader)
            defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
            // Every prefetch response waits at a gate until the normal load is queued, so the
            // order the origin sees depends on the queue alone, not on the machine's speed.
            let gate = TestOriginGate()
            let prefetched = (0..<3).map { index in
                let path = "/low\(index).png"
                origin.register(path, .gated(gate, then: .image(Self.png)))
                return origin.url(path)
            }
            let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 3)
            #expect(prefetcher.options.contains(.lowPriority))
            let done = Recorder<PrefetchResult>()
            prefetcher.prefetch(prefetched, completion: { done.append($0) })
            // One prefetch download runs (one slot, held at the gate), two wait in the queue.
            #expect(await eventually { downloader.currentDownloadCount == 3 })
            #expect(await gate.waitForArrivals(1))
            origin.register("/normal.png", .image(Self.png))
            let normal = Task { try await manager.loadImage(from: origin.url("/normal.png")) }
            #expect(await eventually { downloader.currentDownloadCount == 4 })
            gate.open()
            _ = try await normal.value
            #expect(await done.wait(for: 1))
            let order = origin.allRequests.map(\.path)
            #expect(order.count == 4)
            #expect(order.firstIndex(of: "/normal.png") == 1, "the normal load jumped the low-priority queue: \(order)")
        }
    }
}
