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
