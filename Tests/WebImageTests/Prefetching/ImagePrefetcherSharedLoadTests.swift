import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

extension ImagePrefetcherTests {
    // Shared loads
    @Test("P2 two prefetches of one URL share its load; one cancelling leaves it to the other, both cancelling stop it")
    func P2_sharedLoads() async throws {
        try await withManager { origin, manager in
            let gate = TestOriginGate()
            let shared = images(origin, count: 1, prefix: "shared", gate: gate)
            let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 4)
            let first = Recorder<PrefetchResult>()
            let second = Recorder<PrefetchResult>()
            let firstToken = prefetcher.prefetch(shared) { first.append($0) }
            _ = prefetcher.prefetch(shared) { second.append($0) }
            #expect(await gate.waitForArrivals(1))
            firstToken.cancel()
            #expect(first.values == [PrefetchResult(finishedCount: 0, skippedCount: 0, totalCount: 1, isCancelled: true)])
            gate.open()
            #expect(await second.wait(for: 1))
            #expect(second.values == [PrefetchResult(finishedCount: 1, skippedCount: 0, totalCount: 1)])
            #expect(origin.requestCount(shared[0].path) == 1, "one load for both prefetches")

            // Both leave: the transfer stops.
            origin.register("/stalled.png", .stall(afterBodyBytes: 10, of: .image(Self.png)))
            let stalled = [origin.url("/stalled.png")]
            let a = prefetcher.prefetch(stalled, completion: nil)
            let b = prefetcher.prefetch(stalled, completion: nil)
            #expect(await origin.waitForRequests("/stalled.png"))
            a.cancel()
            #expect(origin.abortedCount("/stalled.png") == 0)
            b.cancel()
            #expect(await origin.waitForAbort("/stalled.png"))
            #expect(await eventually { prefetcher.inFlightCount == 0 })
        }
    }
}
