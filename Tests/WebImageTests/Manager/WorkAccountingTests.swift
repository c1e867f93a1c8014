import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

/// Work is done for someone: downloads wait outside the coding slots, work nobody waits
/// for stops, and work that goes on in the background stops at its deadline.
@Suite("Work accounting")
struct WorkAccountingTests {
    static func jpeg(_ width: Int = 64, _ height: Int = 48) throws -> Data {
        try TestImages.encode(try TestImages.quadrants(width: width, height: height), as: .jpeg, quality: 80)
    }

    static func variant(_ url: URL, transformer: (any ImageTransformer)? = nil) -> ImageRequest {
        ImageRequest.variant(url: url, transformer: transformer, encoding: VariantEncoding(format: .fixed(.png)))
    }

    // SPEC HP1
    @Test("HP1 a download holds no coding slot: with one worker and no queue, a variant is made while another's download stalls")
    func downloadsHoldNoSlot() async throws {
        let limiter = WorkLimiter(workers: 1, queueSize: 0)
        let gate = TestOriginGate()
        try await withOriginAndDownloader { origin, downloader in
            let image = try Self.jpeg()
            origin.register("/slow.jpg", .gated(gate, then: .image(image, contentType: "image/jpeg")))
            origin.register("/fast.jpg", .image(image, contentType: "image/jpeg"))
            let manager = ImageManager(cache: TestCaches.make(), loader: downloader, variantWorkLimiter: limiter)
            let slow = Task { try await manager.loadVariant(Self.variant(origin.url("/slow.jpg"))) }
            #expect(await eventually { gate.arrivals == 1 })
            #expect(limiter.running == 0, "the stalled download sits in no slot")
            let fast = try await manager.loadVariant(Self.variant(origin.url("/fast.jpg")))
            #expect(fast.variant.pixelSize == PixelSize(width: 64, height: 48))
            gate.open()
            _ = try await slow.value
            #expect(limiter.running == 0 && limiter.queued == 0)
        }
    }

    // SPEC HP1
    @Test("HP1 a variant nobody waits for any more stops: its download is closed at the origin and nothing is left in flight")
    func abandonedVariantStops() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/endless.jpg", .endless())
            let manager = ImageManager(cache: TestCaches.make(), loader: downloader, variantWorkLimiter: WorkLimiter(workers: 2, queueSize: 4))
            let task = Task { try await manager.loadVariant(Self.variant(origin.url("/endless.jpg"))) }
            #expect(await origin.waitForRequests("/endless.jpg"))
            task.cancel()
            await #expect(throws: ImageError.cancelled) { try await task.value }
            #expect(await origin.waitForAbort("/endless.jpg"))
            #expect(await eventually { manager.pipeline.inFlightCount == 0 && downloader.currentDownloadCount == 0 })
        }
    }

    @Test("work that continues in the background stops at the manager's deadline and says so in an event")
    func backgroundDeadline() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/endless.jpg", .endless())
            let events = ImageEvents()
            let expired = Locked<[ImageEvent]>([])
            events.observe { event in
                if case .backgroundWorkExpired = event { expired.withLock { $0.append(event) } }
            }
            let manager = ImageManager(
                cache: TestCaches.make(), loader: downloader, variantWorkLimiter: WorkLimiter(workers: 2, queueSize: 4), events: events,
                backgroundDeadline: .milliseconds(200)
            )
            let url = origin.url("/endless.jpg")
            let task = Task { try await manager.loadVariant(Self.variant(url).adding([.continueInBackground])) }
            #expect(await origin.waitForRequests("/endless.jpg"))
            task.cancel()
            await #expect(throws: ImageError.cancelled) { try await task.value }
            // The work went on without its caller until the deadline, then stopped.
            #expect(await eventually { !expired.withLock { $0.isEmpty } })
            #expect(expired.withLock { $0 } == [.backgroundWorkExpired(url: url, deadline: .milliseconds(200))])
            #expect(await origin.waitForAbort("/endless.jpg"))
            #expect(await eventually { manager.pipeline.inFlightCount == 0 })
        }
    }

    @Test("a background deadline does not cut work off while a caller waits for it again")
    func backgroundDeadlineSparesJoinedWork() async throws {
        let gate = TestOriginGate()
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/held.jpg", .gated(gate, then: .image(try Self.jpeg(), contentType: "image/jpeg")))
            let events = ImageEvents()
            let expired = Atomic<Int>(0)
            events.observe { if case .backgroundWorkExpired = $0 { expired.add(1, ordering: .relaxed) } }
            let manager = ImageManager(cache: TestCaches.make(), loader: downloader, events: events, backgroundDeadline: .seconds(1))
            let request = Self.variant(origin.url("/held.jpg"))
            let first = Task { try await manager.loadVariant(request.adding([.continueInBackground])) }
            #expect(await eventually { gate.arrivals == 1 })
            first.cancel()
            // A second caller joins the orphaned work before its deadline.
            let second = Task { try await manager.loadVariant(request.adding([.continueInBackground])) }
            #expect(await eventually { manager.pipeline.variants.all.first?.sharedWork.subscriberCount == 1 })
            try await Task.sleep(for: .milliseconds(1500))
            gate.open()
            let result = try await second.value
            #expect(result.variant.pixelSize == PixelSize(width: 64, height: 48))
            #expect(expired.load(ordering: .relaxed) == 0)
            #expect(origin.requestCount("/held.jpg") == 1)
        }
    }
}
