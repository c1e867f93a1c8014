import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The downloader's own limits: downloads at once in all and per host, and a deadline for
/// a whole transfer, body included.
@Suite("Download limits")
struct DownloadLimitsTests {
    // SPEC HT3
    @Test("HT3 the per-host limit holds at the origin, and downloads from another host go past the waiting ones")
    func perHostLimit() async throws {
        let gate = TestOriginGate()
        let other = try await TestOrigin.start(host: "127.0.0.2")
        try await withOriginAndDownloader(configure: {
            $0.maxConcurrentDownloads = 8
            $0.maxConcurrentDownloadsPerHost = 2
        }) { origin, downloader in
            let body = Data(repeating: 7, count: 1000)
            for index in 0..<6 { origin.register("/held\(index).jpg", .gated(gate, then: .data(body, contentType: "image/jpeg"))) }
            other.register("/free.jpg", .data(body, contentType: "image/jpeg"))
            let held = (0..<6).map { index in
                Task { try await downloader.load(origin.url("/held\(index).jpg")) }
            }
            #expect(await eventually { gate.arrivals == 2 })
            // The four waiting for the held host do not hold up another host's download.
            let free = try await downloader.load(other.url("/free.jpg"))
            #expect(free.data == body)
            #expect(origin.openConnectionCount <= 2 && origin.maxConcurrentRequests == 2)
            gate.open()
            for task in held { #expect(try await task.value.data == body) }
            #expect(origin.maxConcurrentRequests == 2, "never more than the per-host limit at once")
            #expect(origin.connectionCount <= 2, "two connections, kept alive for the rest")
        }
        try await other.shutdown()
    }

    /// Registers a held `/blocker.jpg` that fills the only slot, and `paths` served at
    /// once; returns the gate that lets the blocker go.
    static func fillTheOnlySlot(_ origin: TestOrigin, _ downloader: ImageDownloader, then paths: [String]) async -> TestOriginGate {
        let gate = TestOriginGate()
        let body = Data(repeating: 7, count: 1000)
        origin.register("/blocker.jpg", .gated(gate, then: .data(body, contentType: "image/jpeg")))
        for path in paths { origin.register(path, .data(body, contentType: "image/jpeg")) }
        downloader.download(origin.url("/blocker.jpg")) { _ in }
        _ = await gate.waitForArrivals(1)
        return gate
    }

    /// The paths the origin was asked for, in order, once it has seen `count` requests.
    static func startOrder(_ origin: TestOrigin, count: Int) async -> [String] {
        _ = await eventually { origin.totalRequestCount >= count }
        return origin.allRequests.map(\.path)
    }

    // SPEC HT3
    @Test("HT3 a queued download takes the highest priority of the callers joined to it")
    func joinedCallerRaisesThePriority() async throws {
        try await withOriginAndDownloader(configure: { $0.maxConcurrentDownloads = 1 }) { origin, downloader in
            let gate = await Self.fillTheOnlySlot(origin, downloader, then: ["/prefetch.jpg", "/normal.jpg"])
            downloader.download(origin.url("/prefetch.jpg"), options: DownloadOptions(priority: .low)) { _ in }
            downloader.download(origin.url("/normal.jpg")) { _ in }
            // A caller at high priority joins the queued low one: the transfer moves ahead.
            downloader.download(origin.url("/prefetch.jpg"), options: DownloadOptions(priority: .high)) { _ in }
            #expect(downloader.currentDownloadCount == 3, "the joined caller shares the queued transfer")
            gate.open()
            #expect(await Self.startOrder(origin, count: 3) == ["/blocker.jpg", "/prefetch.jpg", "/normal.jpg"])
            #expect(await origin.waitForIdle())
        }
    }

    // SPEC HT3
    @Test("HT3 a joined caller that leaves takes its priority with it")
    func leavingCallerLowersThePriority() async throws {
        try await withOriginAndDownloader(configure: { $0.maxConcurrentDownloads = 1 }) { origin, downloader in
            let gate = await Self.fillTheOnlySlot(origin, downloader, then: ["/prefetch.jpg", "/normal.jpg"])
            downloader.download(origin.url("/prefetch.jpg"), options: DownloadOptions(priority: .low)) { _ in }
            downloader.download(origin.url("/normal.jpg")) { _ in }
            let urgent = downloader.download(origin.url("/prefetch.jpg"), options: DownloadOptions(priority: .high)) { _ in }
            urgent?.cancel()
            gate.open()
            #expect(await Self.startOrder(origin, count: 3) == ["/blocker.jpg", "/normal.jpg", "/prefetch.jpg"])
            #expect(await origin.waitForIdle())
        }
    }

    @Test("a rate limit starts its burst at once, then one download per start the bucket refills, by its clock")
    func rateLimit() async throws {
        let clock = ManualClock()
        try await withOriginAndDownloader(configure: {
            $0.maxConcurrentDownloads = 8
            $0.rateLimit = DownloadRateLimit(startsPerSecond: 2, burst: 2, clock: clock)
        }) { origin, downloader in
            let body = Data(repeating: 7, count: 100)
            for index in 0..<5 { origin.register("/paced\(index).jpg", .data(body, contentType: "image/jpeg")) }
            let loads = (0..<5).map { index in Task { try await downloader.load(origin.url("/paced\(index).jpg")) } }
            // The burst of two starts; the queue then waits on the clock for the next start.
            #expect(await eventually { origin.totalRequestCount == 2 && clock.sleeperCount == 1 })
            #expect(await origin.waitForIdle())
            #expect(origin.totalRequestCount == 2, "free slots do not start more than the bucket allows")
            // Two starts a second: half a second refills one.
            clock.advance(by: .milliseconds(500))
            #expect(await eventually { origin.totalRequestCount == 3 && clock.sleeperCount == 1 })
            #expect(origin.totalRequestCount == 3)
            clock.advance(by: .seconds(1))
            for load in loads {
                let data = try await load.value.data
                #expect(data == body)
            }
            #expect(origin.totalRequestCount == 5)
        }
    }

    // SPEC D12
    @Test("D12 a body that trickles in steadily is cut at the whole-transfer deadline, though no chunk waits as long as the idle timeout")
    func wholeTransferDeadline() async throws {
        try await withOriginAndDownloader(configure: {
            $0.idleTimeout = .seconds(60)
            $0.totalTimeout = .milliseconds(500)
        }) { origin, downloader in
            // 400 bytes, one every 50 ms: 20 s in all, with the head at once.
            origin.register("/trickle.jpg", .data(Data(count: 400), contentType: "image/jpeg").streamed(chunkSize: 1, interval: .milliseconds(50)))
            await #expect(throws: ImageError.timedOut("the download of \(origin.url("/trickle.jpg").absoluteString) took longer than 0.5 seconds")) {
                try await downloader.load(origin.url("/trickle.jpg"))
            }
            #expect(await origin.waitForIdle(timeout: .seconds(60)), "the transfer was closed, not left to run")
            #expect(origin.completedCount("/trickle.jpg") == 0)
            #expect(await eventually { downloader.currentDownloadCount == 0 })
        }
    }
}
