import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
import WebImageTestSupport

/// The downloader's retries (``RetryPolicy``) against the test origin: which failures are
/// tried again, how many times, after which wait, and when never. Every assertion counts
/// requests, events or the waits asked of the clock; none measures time.
@Suite("Download retries")
struct DownloadRetriesTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 16, height: 16), as: .png)

    /// Runs `body` with an origin and a downloader whose waits are on `clock` and whose
    /// events go to the returned recorder.
    static func withRetryingDownloader(
        clock: any Clock<Duration> = InstantClock(),
        configure: @escaping (inout DownloaderConfig) -> Void = { _ in },
        _ body: (TestOrigin, ImageDownloader, Recorder<ImageEvent>) async throws -> Void
    ) async throws {
        try await withOriginAndDownloader(configure: {
            $0.retryClock = clock
            configure(&$0)
        }) { origin, downloader in
            let events = Recorder<ImageEvent>()
            downloader.events.observe { events.append($0) }
            try await body(origin, downloader, events)
        }
    }

    /// The retries among `events`.
    static func retries(_ events: Recorder<ImageEvent>) -> [ImageEvent] {
        events.values.filter { if case .retrying = $0 { true } else { false } }
    }

    @Test("HT2 a 503 with Retry-After is retried after it")
    func HT2_503WithRetryAfterIsRetriedAfterIt() async throws {
        let clock = InstantClock()
        try await Self.withRetryingDownloader(clock: clock) { origin, downloader, events in
            origin.registerFailing("/busy.png", times: 1, with: .status(503, headers: [("Retry-After", "1")]), then: .image(Self.png))
            let response = try await downloader.load(origin.url("/busy.png"))
            #expect(response.data == Self.png)
            #expect(origin.requestCount("/busy.png") == 2)
            #expect(clock.sleeps == [.seconds(1)])
            #expect(Self.retries(events) == [
                .retrying(url: origin.url("/busy.png"), retry: 1, delay: .seconds(1), reason: .invalidStatusCode(503)),
            ])
            let names = events.values.map(ImageDownloaderTests.name)
            #expect(names == ["started", "response", "retrying", "response", "stopped", "finished"])
        }
    }

    @Test("HT2 a 404 is not retried")
    func HT2_404IsNotRetried() async throws {
        let clock = InstantClock()
        try await Self.withRetryingDownloader(clock: clock) { origin, downloader, events in
            origin.register("/gone.png", .status(404))
            await #expect(throws: ImageError.invalidStatusCode(404)) { try await downloader.load(origin.url("/gone.png")) }
            #expect(origin.requestCount("/gone.png") == 1)
            #expect(clock.sleeps.isEmpty)
            #expect(Self.retries(events).isEmpty)
        }
    }

    @Test("HT2 a source that keeps failing is tried maxRetries + 1 times, with growing waits, and fails with its status")
    func HT2_retriesStopAtMaxRetries() async throws {
        let clock = InstantClock()
        try await Self.withRetryingDownloader(clock: clock, configure: {
            $0.retryPolicy = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(100), multiplier: 2, jitter: 0)
        }) { origin, downloader, events in
            origin.register("/down.png", .status(502))
            await #expect(throws: ImageError.invalidStatusCode(502)) { try await downloader.load(origin.url("/down.png")) }
            #expect(origin.requestCount("/down.png") == 4)
            #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
            #expect(Self.retries(events).count == 3)
        }
    }

    @Test("HT2 the default policy retries twice")
    func HT2_defaultPolicyRetriesTwice() async throws {
        try await Self.withRetryingDownloader { origin, downloader, _ in
            #expect(downloader.config.retryPolicy == .default)
            origin.register("/down.png", .status(500))
            await #expect(throws: ImageError.invalidStatusCode(500)) { try await downloader.load(origin.url("/down.png")) }
            #expect(origin.requestCount("/down.png") == 3)
        }
    }

    @Test("HT2 retries off for one download or one request: one request")
    func HT2_retryOffPerRequestMakesOneRequest() async throws {
        try await Self.withRetryingDownloader { origin, downloader, events in
            origin.register("/busy.png", .status(503))
            var options = DownloadOptions()
            options.retryPolicy = .never
            await #expect(throws: ImageError.invalidStatusCode(503)) { try await downloader.load(origin.url("/busy.png"), options: options) }
            #expect(origin.requestCount("/busy.png") == 1)

            let cache = TestCaches.make()
            defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
            let manager = ImageManager(cache: cache, loader: downloader)
            var request = ImageRequest(url: origin.url("/busy.png?request"))
            request.retryPolicy = .never
            await #expect(throws: ImageError.invalidStatusCode(503)) { try await manager.loadImage(request) }
            #expect(origin.requestCount("/busy.png") == 2)
            #expect(Self.retries(events).isEmpty)

            // The same request with the downloader's policy is retried.
            request = ImageRequest(url: origin.url("/busy.png?default"))
            await #expect(throws: ImageError.invalidStatusCode(503)) { try await manager.loadImage(request) }
            #expect(origin.requestCount("/busy.png") == 5)
        }
    }

    @Test("HT2 a request's own policy replaces the downloader's")
    func HT2_requestPolicyReplacesTheDownloaders() async throws {
        try await Self.withRetryingDownloader(configure: { $0.retryPolicy = .never }) { origin, downloader, _ in
            origin.registerFailing("/busy.png", times: 1, with: .status(503), then: .image(Self.png))
            let cache = TestCaches.make()
            defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
            let manager = ImageManager(cache: cache, loader: downloader)
            var request = ImageRequest(url: origin.url("/busy.png"), output: .data)
            request.retryPolicy = RetryPolicy(maxRetries: 1)
            let result = try await manager.loadImage(request)
            #expect(result.data == Self.png)
            #expect(origin.requestCount("/busy.png") == 2)
        }
    }

    @Test("HT2 a connection reset before the response is retried")
    func HT2_resetConnectionIsRetried() async throws {
        try await Self.withRetryingDownloader { origin, downloader, events in
            origin.registerFailing("/flaky.png", times: 1, with: .reset, then: .image(Self.png))
            let response = try await downloader.load(origin.url("/flaky.png"))
            #expect(response.data == Self.png)
            #expect(origin.requestCount("/flaky.png") == 2)
            #expect(Self.retries(events).count == 1)
        }
    }

    @Test("HT2 a refused connection is retried, then fails as a network error")
    func HT2_refusedConnectionIsRetried() async throws {
        try await Self.withRetryingDownloader { _, downloader, events in
            let closed = URL(string: "http://127.0.0.1:\(try freeLoopbackPort())/a.png")!
            await #expect {
                try await downloader.load(closed)
            } throws: { error in
                guard case ImageError.network = error else { return false }
                return true
            }
            #expect(Self.retries(events).count == 2)
        }
    }

    @Test("HT2 transport failures are not retried when the policy says so")
    func HT2_transportFailuresCanBeLeftAlone() async throws {
        try await Self.withRetryingDownloader(configure: {
            $0.retryPolicy = RetryPolicy(retriesTransportFailures: false)
        }) { origin, downloader, _ in
            origin.register("/reset.png", .reset)
            await #expect(throws: ImageError.self) { try await downloader.load(origin.url("/reset.png")) }
            #expect(origin.requestCount("/reset.png") == 1)
        }
    }

    @Test("HT2 a POST is never retried")
    func HT2_postIsNeverRetried() async throws {
        try await Self.withRetryingDownloader { origin, downloader, events in
            origin.register("/render", .status(503))
            var options = DownloadOptions()
            options.requestModifier = RequestMethodAndBodyTests.postingFirstHop(to: origin.url("/render"))
            await #expect(throws: ImageError.invalidStatusCode(503)) { try await downloader.load(origin.url("/render"), options: options) }
            #expect(origin.requestCount("/render") == 1)
            #expect(origin.lastRequest("/render")?.method == "POST")
            #expect(Self.retries(events).isEmpty)
        }
    }

    @Test("HT2 a Retry-After above the cap fails at once with the status, without waiting")
    func HT2_retryAfterAboveTheCapFailsWithoutWaiting() async throws {
        let clock = InstantClock()
        try await Self.withRetryingDownloader(clock: clock) { origin, downloader, events in
            origin.register("/later.png", .status(503, headers: [("Retry-After", "3600")]))
            await #expect(throws: ImageError.invalidStatusCode(503)) { try await downloader.load(origin.url("/later.png")) }
            #expect(origin.requestCount("/later.png") == 1)
            #expect(clock.sleeps.isEmpty)
            #expect(Self.retries(events).isEmpty)
        }
    }

    @Test("HT2 a Retry-After date is measured from the response's Date; a later one than the cap fails at once")
    func HT2_retryAfterDate() async throws {
        let clock = InstantClock()
        try await Self.withRetryingDownloader(clock: clock) { origin, downloader, _ in
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            let soon = [("Date", HTTPDate.string(from: now)), ("Retry-After", HTTPDate.string(from: now + 3))]
            origin.registerFailing("/soon.png", times: 1, with: .status(429, headers: soon), then: .image(Self.png))
            let response = try await downloader.load(origin.url("/soon.png"))
            #expect(response.data == Self.png)
            #expect(clock.sleeps == [.seconds(3)])

            let late = [("Date", HTTPDate.string(from: now)), ("Retry-After", HTTPDate.string(from: now + 60))]
            origin.register("/late.png", .status(503, headers: late))
            await #expect(throws: ImageError.invalidStatusCode(503)) { try await downloader.load(origin.url("/late.png")) }
            #expect(origin.requestCount("/late.png") == 1)
            #expect(clock.sleeps == [.seconds(3)])
        }
    }

    @Test("HT2 a wait that would end past the whole-transfer deadline is not started")
    func HT2_waitPastTheDeadlineFails() async throws {
        let clock = InstantClock()
        // A deadline a loaded machine (the thread sanitizer on 2 cores) cannot reach before
        // the first answer, and a Retry-After past it that the cap allows.
        let configure: (inout DownloaderConfig) -> Void = { config in
            config.totalTimeout = .seconds(300)
            config.retryPolicy.maxRetryAfter = .seconds(3600)
        }
        try await Self.withRetryingDownloader(clock: clock, configure: configure) { origin, downloader, _ in
            origin.register("/later.png", .status(503, headers: [("Retry-After", "600")]))
            await #expect(throws: ImageError.invalidStatusCode(503)) { try await downloader.load(origin.url("/later.png")) }
            #expect(origin.requestCount("/later.png") == 1)
            #expect(clock.sleeps.isEmpty)
        }
    }

    @Test("HT2 cancelling the load during the wait ends it at once with cancelled")
    func HT2_cancellationDuringTheWait() async throws {
        // A clock that never moves: only the cancellation can end the wait.
        let clock = ManualClock()
        try await Self.withRetryingDownloader(clock: clock) { origin, downloader, events in
            origin.register("/busy.png", .status(503, headers: [("Retry-After", "5")]))
            let url = origin.url("/busy.png")
            let load = Task { () async throws(ImageError) -> DownloadResponse in try await downloader.load(url) }
            #expect(await eventually { Self.retries(events).count == 1 && clock.sleeperCount == 1 })
            load.cancel()
            let result = await load.result
            #expect(throws: ImageError.cancelled) { try result.get() }
            #expect(origin.requestCount("/busy.png") == 1)
            #expect(await eventually { downloader.currentDownloadCount == 0 })
            #expect(clock.sleeperCount == 0)
        }
    }

    @Test("HT2 no retry once body bytes reached a caller's progress")
    func HT2_noRetryAfterProgressReachedTheCaller() async throws {
        try await Self.withRetryingDownloader(configure: { $0.minimumProgressInterval = .zero }) { origin, downloader, events in
            let cut = TestOriginResponse.image(Self.png).streamed(chunkSize: 64, interval: .zero).dropping(afterBodyBytes: 64)
            origin.registerFailing("/cut.png", times: 1, with: cut, then: .image(Self.png))
            let received = Recorder<Int>()
            await #expect(throws: ImageError.self) {
                try await downloader.load(origin.url("/cut.png"), progress: { received.append($0.receivedBytes) })
            }
            #expect(received.values.contains { $0 > 0 })
            #expect(origin.requestCount("/cut.png") == 1)
            #expect(Self.retries(events).isEmpty)
        }
    }

    @Test("HT2 a body cut short before any of it reached a caller is fetched again")
    func HT2_cutBodyNotYetDeliveredIsRetried() async throws {
        try await Self.withRetryingDownloader { origin, downloader, events in
            let cut = TestOriginResponse.image(Self.png).streamed(chunkSize: 64, interval: .zero).dropping(afterBodyBytes: 64)
            origin.registerFailing("/cut.png", times: 1, with: cut, then: .image(Self.png))
            let response = try await downloader.load(origin.url("/cut.png"))
            #expect(response.data == Self.png)
            #expect(origin.requestCount("/cut.png") == 2)
            #expect(Self.retries(events).count == 1)
        }
    }

    @Test("HT2 an error response handed back to its loader is retried, and the last one returned as sent")
    func HT2_errorResponsesAreRetried() async throws {
        try await Self.withRetryingDownloader(configure: { $0.retryPolicy = RetryPolicy(maxRetries: 1) }) { origin, downloader, _ in
            origin.register("/slow-down", .text("<Error><Code>SlowDown</Code></Error>", status: 503, contentType: "application/xml"))
            var options = DownloadOptions()
            options.returnsErrorResponses = true
            let response = try await downloader.load(origin.url("/slow-down"), options: options)
            #expect(response.head.statusCode == 503)
            #expect(String(decoding: response.data, as: UTF8.self).contains("SlowDown"))
            #expect(origin.requestCount("/slow-down") == 2)
        }
    }
}
