import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

@Suite("Proxy operations")
struct ProxyOperationsTests {
    @Test("S9 a full queue answers 429; /health answers 200")
    func queueFull() async throws {
        // Request and download timeouts far beyond the test's own waits: the held and the
        // queued requests must end in 200, not 504, however slowly the machine (or the
        // sanitizer) runs.
        try await TestProxy.with(configure: { $0.limits.workers = 1; $0.limits.queueSize = 1; $0.limits.requestTimeout = .seconds(600); $0.sources.downloadTimeout = .seconds(600) }) { (origin, proxy) async throws in
            // The only worker is held by the test until it has seen the queue full; a download
            // holds no worker, so the requests' sources arrive first.
            origin.register("/slow.jpg", .image(ProxyImages.jpeg))
            let limiter = try #require(proxy.server.manager.variantWorkLimiter)
            let (release, releasing) = AsyncStream.makeStream(of: Void.self)
            let holder = Task { try await limiter.run { for await _ in release {} } }
            #expect(await eventually { limiter.running == 1 })
            // Distinct variants, so they cannot share one flight: one waits, the next is refused.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask { try await proxy.get(proxyPath("rs:fit:20:20", source: origin.url("/slow.jpg")), timeout: .seconds(600)).status }
                let deadline = ContinuousClock.now + .seconds(30)
                while try await proxy.metric("webimage_queue_depth") < 1, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(try await proxy.metric("webimage_queue_depth") == 1)
                let refused = try await proxy.get(proxyPath("rs:fit:30:30", source: origin.url("/slow.jpg")))
                #expect(refused.status == 429)
                #expect(refused.header("cache-control") == "no-store")
                #expect(try await proxy.get("/health").status == 200)
                releasing.finish()
                var statuses: [Int] = [refused.status]
                for try await status in group { statuses.append(status) }
                return statuses
            }
            try await holder.value
            #expect(statuses.sorted() == [200, 429])
        }
    }

    @Test("S9 /metrics exposes requests by status (image routes only), errors, latency, queue, in-flight, cache hits and source bytes")
    func metrics() async throws {
        // Requests by status, errors and latency are Hummingbird's, through the process's
        // metrics system: a process of its own.
        let origin = try await TestOrigin.start()
        origin.register("/a.jpg", .image(ProxyImages.jpeg))
        origin.register("/gone.jpg", .status(404))
        let proxy = try ServeProcess()
        defer { proxy.stop() }
        _ = try await proxy.client.get(proxyPath("", source: origin.url("/a.jpg")))
        _ = try await proxy.client.get(proxyPath("", source: origin.url("/a.jpg")))
        _ = try await proxy.client.get(proxyPath("", source: origin.url("/gone.jpg")))
        // Probes and scrapes are not requests: the counts below are the image routes' alone.
        for _ in 0..<3 {
            #expect(try await proxy.client.get("/health").status == 200)
            #expect(try await proxy.client.get("/metrics").status == 200)
        }
        let reply = try await proxy.client.get("/metrics")
        #expect(reply.status == 200)
        #expect(reply.header("content-type")?.hasPrefix("text/plain") == true)
        let text = reply.text
        for name in ["webimage_requests_total{status=\"200\"} 2", "webimage_requests_total{status=\"404\"} 1",
                     "webimage_request_errors_total{status=\"404\"} 1", "webimage_request_duration_seconds_bucket",
                     "webimage_queue_depth", "webimage_in_flight_requests", "webimage_cache_hits_total{type=\"memory\"} 1",
                     "webimage_source_bytes_total \(ProxyImages.jpeg.count)", "webimage_client_connections",
                     "webimage_memory_budget_bytes", "webimage_memory_reserved_bytes", "webimage_memory_waiting"] {
            #expect(text.contains(name), "\(name)")
        }
        proxy.stop()
        try await origin.shutdown()
    }

    @Test("S9 configuration from WEBIMAGE_* variables, with clear errors")
    func configuration() throws {
        var config = ServerConfig()
        try ServerSetting.apply(environment: [
            "WEBIMAGE_PORT": "9090", "WEBIMAGE_KEYS": "736563726574,6b6579", "WEBIMAGE_SALTS": "68656c6c6f,73616c74",
            "WEBIMAGE_ALLOW_LOOPBACK": "true", "WEBIMAGE_MAX_SOURCE_BYTES": "8M", "WEBIMAGE_MAX_SOURCE_RESOLUTION": "12.5",
            "WEBIMAGE_DOWNLOAD_TIMEOUT": "2.5", "WEBIMAGE_PRESETS": "thumb=rs:fill:100:100,small=w:50",
            "WEBIMAGE_PREFERRED_FORMATS": "webp,png", "WEBIMAGE_AUTO_AVIF": "0", "WEBIMAGE_MEMORY_BUDGET": "1G",
        ], to: &config)
        try config.validate()
        #expect(config.listen.port == 9090)
        #expect(try config.signing.signingKeys().count == 2)
        #expect(config.sources.allowLoopback)
        #expect(config.limits.maxSourceBytes == 8 << 20)
        #expect(config.limits.maxSourceResolution == 12_500_000)
        #expect(config.sources.downloadTimeout == .milliseconds(2500))
        #expect(config.signing.presets == ["thumb": "rs:fill:100:100", "small": "w:50"])
        #expect(config.encoding.preferredFormats == [.webp, .png])
        #expect(!config.encoding.autoAVIF)
        #expect(config.limits.memoryBudget == 1 << 30)
        #expect(ServerConfig().limits.memoryBudget == MemoryBudget.defaultBytes && MemoryBudget.defaultBytes <= MemoryBudget.availableMemory)

        // A flag given later replaces the variable's value.
        try ServerSetting.port.apply(["7070"], to: &config)
        #expect(config.listen.port == 7070)

        var bad = ServerConfig()
        #expect(throws: ServerConfigError.self) { try ServerSetting.apply(environment: ["WEBIMAGE_PORT": "eighty"], to: &bad) }
        var noBudget = ServerConfig()
        noBudget.limits.memoryBudget = 0
        #expect(throws: ServerConfigError("memory budget must be at least 1, not 0 (--memory-budget, WEBIMAGE_MEMORY_BUDGET)")) { try noBudget.validate() }
        bad.signing.keys = ["abcd"]
        #expect(throws: ServerConfigError.self) { try bad.validate() }
        bad.signing.salts = ["zz"]
        #expect(throws: ServerConfigError.self) { try bad.validate() }
        var badPreset = ServerConfig()
        badPreset.signing.presets = ["x": "rs:nonsense"]
        #expect(throws: ServerConfigError.self) { try badPreset.validate() }
    }
}
