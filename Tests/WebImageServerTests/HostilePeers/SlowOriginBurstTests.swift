import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// A burst of requests abandoned by their clients, on an origin that sends its headers and
/// then trickles its body, costs the proxy nothing it needs for other requests.
@Suite("Hostile peers: slow origin burst")
struct SlowOriginBurstTests {
    /// Abandoned requests in the burst; `WEBIMAGE_HP1_BURST` sets another count
    /// (`make test-hostile` runs a heavier burst).
    static let burst = ProcessInfo.processInfo.environment["WEBIMAGE_HP1_BURST"].flatMap(Int.init) ?? 300
    /// Normal cache misses answered during it, half from `local://`; `WEBIMAGE_HP1_MISSES`
    /// sets another count.
    static let misses = ProcessInfo.processInfo.environment["WEBIMAGE_HP1_MISSES"].flatMap(Int.init) ?? 40

    // SPEC HP1
    @Test("HP1 a burst of abandoned requests (300, or WEBIMAGE_HP1_BURST) on a trickling origin: other misses, local:// ones too, are answered all through it; the abandoned work stops", .timeLimit(.minutes(15)))
    func slowOriginBurst() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-hp1-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try ProxyImages.jpeg.write(to: URL(fileURLWithPath: root + "/local.jpg"))
        // The normal misses come from another host: the per-host download limit keeps the slow one to its share.
        let normal = try await TestOrigin.start(host: "127.0.0.2")
        normal.register("/normal.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
        try await TestProxy.with(transport: .socket, configure: {
            $0.sources.localFilesystemRoot = root
            $0.limits.workers = 2
            $0.limits.queueSize = 16
            // Only the clients' hanging up may stop the burst's work, not the request timeout.
            $0.limits.requestTimeout = .seconds(600)
            // The burst comes from one address: the per-address cap, which would close the
            // connections past it, is not what this case shows.
            $0.listen.maxClientsPerAddress = 0
        }) { slow, proxy in
            // The head at once, then one byte a second: each download would take over an hour.
            for index in 0..<Self.burst {
                slow.register("/slow\(index).jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg").streamed(chunkSize: 1, interval: .seconds(1)))
            }
            let held = try await HeldRequests.send(
                (0..<Self.burst).map { "/insecure/rs:fit:50:50/plain/\(slow.url("/slow\($0).jpg").absoluteString)" }, port: proxy.port
            )
            let perHost = proxy.server.config.sources.maxDownloadsPerHost
            #expect(await slow.waitUntil { $0.inFlightCount == perHost }, "the slow host gets its share of downloads, no more")
            let limiter = try #require(proxy.server.manager.variantWorkLimiter)
            // A request passes through a slot for its cache read: once past it, none holds one.
            #expect(await eventually { limiter.running == 0 && limiter.queued == 0 }, "waiting downloads hold no coding slot")

            var latencies: [Duration] = []
            for index in 0..<Self.misses {
                // Distinct variants: each is a cache miss, made in a slot.
                let source = index.isMultiple(of: 2) ? "local:///local.jpg" : normal.url("/normal.jpg").absoluteString
                let start = ContinuousClock.now
                let reply = try await proxy.get("/insecure/rs:fit:\(20 + index):\(20 + index)/plain/\(source)", timeout: .seconds(60))
                latencies.append(ContinuousClock.now - start)
                #expect(reply.status == 200, "\(source): \(reply.text)")
            }
            #expect(slow.inFlightCount == perHost, "the burst was still on while the misses were answered")
            HostilePeerFigures.record("HP1 normal misses during the burst", latencies)

            await held.abandon()
            // Every download of the burst is stopped: none runs to its end.
            #expect(await eventually(timeout: .seconds(120)) { proxy.server.downloader.currentDownloadCount == 0 })
            #expect(await slow.waitUntil(timeout: .seconds(120)) { $0.inFlightCount == 0 })
            #expect(slow.totalAbortedCount == slow.totalRequestCount, "each abandoned download was closed at the origin")
            #expect(await eventually { proxy.server.manager.pipeline.inFlightCount == 0 })
        }
        try await normal.shutdown()
    }
}
