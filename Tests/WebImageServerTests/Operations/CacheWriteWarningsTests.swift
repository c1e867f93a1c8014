import Foundation
import Logging
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

@Suite("Cache write warnings", .serialized)
struct CacheWriteWarningsTests {
    private static func failure(_ key: String) -> CacheWriteFailure {
        CacheWriteFailure(key: key, directory: "/cache/proxy-variants", error: .cacheFailure("cannot write: No space left on device"))
    }

    @Test("every failure is counted; a warning at most once per interval, telling how many failed in between")
    func oneWarningPerInterval() async throws {
        let store = LogLines()
        let logger = Logger(label: "webimage.test.warnings") { _ in RecordingLogHandler(store: store) }
        let metrics = ServerMetrics()
        let warnings = CacheWriteWarnings(interval: .milliseconds(300), logger: logger, metrics: metrics)
        for index in 0..<5 { warnings.record(Self.failure("k\(index)"), cache: "variants") }
        #expect(store.lines.withLock { $0.count } == 1)
        try await Task.sleep(for: .milliseconds(400))
        warnings.record(Self.failure("k5"), cache: "variants")
        let lines = store.lines.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines[0].message.contains("No space left on device"))
        #expect(!lines[0].message.contains("more failed"))
        #expect(lines[1].message.contains("4 more failed since the last warning"))
        #expect(lines.allSatisfy { $0.metadata["cache"] == "variants" && $0.metadata["directory"] == "/cache/proxy-variants" })
        let text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(text.contains("webimage_cache_write_errors_total{cache=\"variants\"} 6"))
    }

    @Test("a full cache disk: every request is still served, the failures are counted and warned about once")
    func fullDiskKeepsServing() async throws {
        let filesystem = try #require(try SmallFilesystem.mount(bytes: 16 * 1024), "mounting a tmpfs needs root")
        defer { filesystem.unmount() }
        let store = LogLines()
        let logger = Logger(label: "webimage.test.full-disk") { _ in RecordingLogHandler(store: store) }
        try await TestProxy.with(configure: { $0.caching.cacheDirectory = filesystem.path + "/cache" }, logger: logger) { (origin, proxy) async throws in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            #expect(try await proxy.metric("webimage_cache_write_errors_total{cache=\"variants\"}") == 0)
            for size in [40, 50, 60, 70, 80, 90] {
                let reply = try await proxy.get(proxyPath("rs:fit:\(size):\(size)", source: origin.url("/a.jpg")), headers: [("Accept", "image/jpeg")])
                #expect(reply.status == 200)
                #expect(try ProxyImages.size(of: reply.body).width == size)
            }
            // The source (about 20 KB) never fits: each variant is made from a new download.
            #expect(origin.requestCount("/a.jpg") == 6)
            // Writes happen after the answer: wait for the last ones to fail.
            let deadline = ContinuousClock.now + .seconds(10)
            while try await proxy.metric("webimage_cache_write_errors_total{cache=\"originals\"}") < 6, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await proxy.metric("webimage_cache_write_errors_total{cache=\"originals\"}") == 6)
            let warnings = store.lines.withLock { $0.filter { $0.message.hasPrefix("disk cache writes are failing") } }
            #expect(warnings.count == 1)
            #expect(warnings.first?.message.contains("No space left on device") == true)
        }
    }
}
