import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The process stopped under load: SIGTERM lets every request in flight finish, and
/// SIGKILL in the middle of cache writes leaves no entry a restart would serve torn.
@Suite("Proxy process faults", .serialized)
struct ProcessFaultTests {
    @Test("SIGTERM under load: every request already in flight (working or queued) is answered 200")
    func sigtermUnderLoad() async throws {
        let origin = try await TestOrigin.start()
        let gate = TestOriginGate()
        let count = 16
        for index in 0..<count {
            origin.register("/held-\(index).jpg", .gated(gate, then: .image(ProxyImages.jpeg, contentType: "image/jpeg")))
        }
        // Timeouts no run reaches: the gate holds the downloads for as long as the test
        // needs (seconds under the thread sanitizer on 2 cores), and the proxy's 30 s
        // request timeout would answer a queued request 504.
        let proxy = try ServeProcess(["--workers", "4", "--request-timeout", "600", "--download-timeout", "600"])
        defer { proxy.stop() }
        // A connection per request, so that every one is at the server, none queued in the client.
        var configuration = HTTPClient.Configuration()
        // Idle connections are dropped before the proxy's 10 s keep-alive timeout closes them.
        configuration.connectionPool = .init(idleTimeout: .seconds(5), concurrentHTTP1ConnectionsPerHostSoftLimit: count)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let replies = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<count {
                    let request = HTTPClientRequest(url: "http://127.0.0.1:\(proxy.port)" + proxyPath("rs:fit:60:60", source: origin.url("/held-\(index).jpg")))
                    group.addTask { Int(try await client.execute(request, timeout: .seconds(600)).status.code) }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        // Eight are downloading (the per-host download limit), the other eight wait for the
        // host; all are in flight at the server (the metrics request is not a request there).
        #expect(await eventually { (0..<count).filter { origin.requestCount("/held-\($0).jpg") > 0 }.count == 8 })
        let deadline = ContinuousClock.now + .seconds(10)
        while try await proxy.metric("webimage_in_flight_requests") < Double(count), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await proxy.metric("webimage_in_flight_requests") == Double(count))
        kill(proxy.process.processIdentifier, SIGTERM)
        #expect(await eventually { !loopbackAccepts(port: proxy.port) })
        gate.open()
        let statuses = try await replies.value
        #expect(statuses.count == count)
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        proxy.process.waitUntilExit()
        #expect(proxy.process.terminationStatus == 0)
        try await client.shutdown()
        try await origin.shutdown()
    }

    @Test("SIGKILL during cache writes, then a restart on the same cache: every answer is a whole image")
    func killDuringWrites() async throws {
        let origin = try await TestOrigin.start()
        origin.register("/photo.jpg", .image(ProxyImages.jpeg, contentType: "image/jpeg"))
        let sizes = Array(stride(from: 20, through: 380, by: 15))
        let first = try ServeProcess(["--workers", "4"])
        let cache = first.cacheDirectory
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for size in sizes {
                    let path = proxyPath("rs:fit:\(size):\(size)", source: origin.url("/photo.jpg"))
                    group.addTask { _ = try? await first.client.get(path) }
                }
                try await group.waitForAll()
            }
        }
        // Killed once variants are being written.
        #expect(await eventually { first.processedDirectoryEntries() >= 5 })
        first.killHard()
        load.cancel()

        let second = try ServeProcess(["--workers", "4"], cacheDirectory: cache)
        defer { second.stop() }
        for size in sizes {
            let reply = try await second.client.get(proxyPath("rs:fit:\(size):\(size)", source: origin.url("/photo.jpg")))
            #expect(reply.status == 200)
            let decoded = try VipsCoder.shared.decode(reply.body, options: .init())
            #expect(max(decoded.pixelSize.width, decoded.pixelSize.height) == size)
        }
        // Whatever the first process had written whole is served from disk, not made again.
        #expect(try await second.metric("webimage_cache_hits_total{type=\"disk\"}") >= 1)
        try await origin.shutdown()
    }
}

extension ServeProcess {
    /// Files in the variant cache's directory, temporary ones included.
    func processedDirectoryEntries() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory + "/proxy-variants"))?.count ?? 0
    }
}
