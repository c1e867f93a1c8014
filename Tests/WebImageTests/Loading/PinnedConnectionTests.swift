import AsyncHTTPClient
import Foundation
import NIOPosix
import Testing
@testable import WebImage
import WebImageTestSupport

/// Pinned hops (`DownloaderConfig.hopAddress`) share pooled clients, one per host and
/// approved address: keep-alive connections are reused across fetches and hops, a client
/// is shut down only after its last request, when idle for its lifetime, pushed out of the
/// pool, or by `shutdown()`. Every figure here is a count, never a timing.
@Suite("Downloader pinned connections")
struct PinnedConnectionTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 8, height: 8), as: .png)

    /// Loads `urls` at once (the downloader runs `maxConcurrentDownloads` of them at a time).
    private static func loadAll(_ urls: [URL], with downloader: ImageDownloader) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for url in urls {
                group.addTask { try await downloader.load(url).data.count }
            }
            return try await group.reduce(0, +)
        }
    }

    @Test("S3 200 fetches from a host pinned to its address reuse a handful of keep-alive connections")
    func keepAliveAcrossFetches() async throws {
        let config = DownloaderConfig()
        try await withOriginAndDownloader(configure: { config in
            config.hopAddress = { url in url.host == "localhost" ? "127.0.0.1" : nil }
        }) { origin, downloader in
            let urls = (0..<200).map { index in
                origin.register("/img/\(index).png", .image(Self.png))
                return URL(string: "http://localhost:\(origin.port)/img/\(index).png")!
            }
            let bytes = try await Self.loadAll(urls, with: downloader)
            #expect(bytes == 200 * Self.png.count)
            #expect(origin.totalRequestCount == 200)
            // At most one connection per transfer running at once, plus the client's race
            // between a connection becoming idle and the next request asking for one. A
            // client per hop would open a connection per fetch: 200 (shown below).
            #expect(origin.connectionCount <= config.maxConcurrentDownloads + 2)
            #expect(downloader.pinnedClientCounts == .init(pooled: 1, open: 1))
        }
    }

    @Test("S3 HTTPS from a pinned host: one client for checked and unchecked certificates, handshakes reused")
    func httpsKeepAlive() async throws {
        let certificate = try SelfSignedCertificate()
        let origin = try await TestOrigin.start(tls: certificate.serverConfiguration)
        var config = DownloaderConfig()
        config.hopAddress = { url in url.host == "localhost" ? "127.0.0.1" : nil }
        // A TLS handshake under the thread sanitizer on 2 cores can take longer than the
        // default 10 s to connect.
        config.connectTimeout = .seconds(120)
        let downloader = ImageDownloader(config: config)
        let urls = (0..<100).map { index in
            origin.register("/tls/\(index).png", .image(Self.png))
            return URL(string: "https://localhost:\(origin.port)/tls/\(index).png")!
        }
        // The certificate is self-signed: refused unless the options allow it.
        let refusal = await #expect(throws: ImageError.self) { _ = try await downloader.load(urls[0]) }
        if case .network = refusal {} else { Issue.record("got \(String(describing: refusal))") }
        var options = DownloadOptions()
        options.allowInvalidSSLCertificates = true
        let insecure = options
        let bytes = try await withThrowingTaskGroup(of: Int.self) { group in
            for url in urls { group.addTask { try await downloader.load(url, options: insecure).data.count } }
            return try await group.reduce(0, +)
        }
        #expect(bytes == 100 * Self.png.count)
        // The refused handshake, then a handful of connections (and handshakes) for 100
        // fetches. AsyncHTTPClient may open more than its per-host limit (8) while TLS
        // handshakes are under way, for the shared client as for a pinned one: 9–12 in a
        // slow, sanitized build, 18 with a second test run sharing its two cores. A client
        // per hop would make 100.
        #expect(origin.connectionCount <= 1 + 3 * max(8, config.maxConcurrentDownloads))
        // The TLS options are a key of the client's own connection pool, not of the pinned pool.
        #expect(downloader.pinnedClientCounts == .init(pooled: 1, open: 1))
        await downloader.shutdown()
        try await origin.shutdown()
    }

    @Test("S3 a client made per hop (the design the pool replaces) opens a connection per fetch")
    func clientPerHopOpensAConnectionPerFetch() async throws {
        // What the pooled test above would count with a client per hop: each fetch's client
        // starts with an empty connection pool, so each fetch connects anew.
        try await TestOrigin.with { origin in
            origin.register("/a.png", .image(Self.png))
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.dnsOverride = ["localhost": "127.0.0.1"]
            for _ in 0..<5 {
                let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
                let response = try await client.execute(HTTPClientRequest(url: "http://localhost:\(origin.port)/a.png"), timeout: .seconds(10))
                _ = try await response.body.collect(upTo: 1 << 20)
                try await client.shutdown()
            }
            #expect(origin.connectionCount == 5)
        }
    }

    @Test("S3 an address equal to the URL's IP literal uses the shared client")
    func literalAddressUsesSharedClient() async throws {
        try await withOriginAndDownloader(configure: { config in
            config.hopAddress = { _ in "127.0.0.1" }
        }) { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            _ = try await downloader.load(origin.url("/a.png"))
            #expect(downloader.pinnedClientCounts == .init(pooled: 0, open: 0))
        }
    }

    @Test("S3 a redirect to another host-named hop is approved and gets a pinned client of its own")
    func redirectGetsItsOwnClient() async throws {
        let asked = Recorder<String>()
        try await withOriginAndDownloader(configure: { config in
            config.hopAddress = { url in
                asked.append(url.host ?? "")
                return "127.0.0.1"
            }
        }) { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            origin.register("/hop", .redirect(to: "http://second.invalid:\(origin.port)/a.png"))
            let url = URL(string: "http://first.invalid:\(origin.port)/hop")!
            let response = try await downloader.load(url)
            #expect(response.data == Self.png)
            #expect(asked.values == ["first.invalid", "second.invalid"])
            #expect(origin.lastRequest("/hop")?.header("host") == "first.invalid:\(origin.port)")
            #expect(origin.lastRequest("/a.png")?.header("host") == "second.invalid:\(origin.port)")
            #expect(downloader.pinnedClientCounts == .init(pooled: 2, open: 2))

            // Both hops again: the same two clients, each hop approved again.
            let again = try await downloader.load(URL(string: "http://first.invalid:\(origin.port)/hop?again")!)
            #expect(again.data == Self.png)
            #expect(asked.values == ["first.invalid", "second.invalid", "first.invalid", "second.invalid"])
            #expect(downloader.pinnedClientCounts == .init(pooled: 2, open: 2))
        }
    }

    @Test("S3 a pinned client idle for its lifetime is shut down and its connections close")
    func idleClientIsShutDown() async throws {
        try await withOriginAndDownloader(configure: { config in
            config.pinnedClientIdleLifetime = .milliseconds(20)
            config.hopAddress = { _ in "127.0.0.1" }
        }) { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            _ = try await downloader.load(URL(string: "http://idle.invalid:\(origin.port)/a.png")!)
            #expect(origin.connectionCount == 1)
            #expect(await Self.waitUntil { downloader.pinnedClientCounts == .init(pooled: 0, open: 0) })
            #expect(await origin.waitUntil { $0.openConnectionCount == 0 })

            // The next fetch makes a new client, and a new connection.
            _ = try await downloader.load(URL(string: "http://idle.invalid:\(origin.port)/a.png?next")!)
            #expect(origin.connectionCount == 2)
        }
    }

    @Test("S3 a leased client outlives the idle sweep and being pushed out of the pool")
    func leasedClientIsNotShutDown() async throws {
        let gate = TestOriginGate()
        try await withOriginAndDownloader(configure: { config in
            config.pinnedClientIdleLifetime = .zero
            config.maxPinnedClients = 2
            config.hopAddress = { _ in "127.0.0.1" }
        }) { origin, downloader in
            origin.register("/held.png", .gated(gate, then: .image(Self.png)))
            origin.register("/a.png", .image(Self.png))
            let held = Task { try await downloader.load(URL(string: "http://held.invalid:\(origin.port)/held.png")!) }
            #expect(await origin.waitForRequests("/held.png"))

            // Another host's fetch ends and schedules a sweep with a zero lifetime: it takes
            // only the idle client.
            _ = try await downloader.load(URL(string: "http://quick.invalid:\(origin.port)/a.png")!)
            #expect(await Self.waitUntil { downloader.pinnedClientCounts == .init(pooled: 1, open: 1) })

            // Two more hosts push the held client out of the pool (bound 2); it stays open.
            let held2 = Task { try await downloader.load(URL(string: "http://second.invalid:\(origin.port)/held.png")!) }
            let held3 = Task { try await downloader.load(URL(string: "http://third.invalid:\(origin.port)/held.png")!) }
            #expect(await origin.waitForRequests("/held.png", count: 3))
            #expect(downloader.pinnedClientCounts == .init(pooled: 2, open: 3))

            gate.open()
            #expect(try await held.value.data == Self.png)
            #expect(try await held2.value.data == Self.png)
            #expect(try await held3.value.data == Self.png)
            // Its last lease ended: the pushed-out client shuts down, the others idle out.
            #expect(await Self.waitUntil { downloader.pinnedClientCounts == .init(pooled: 0, open: 0) })
        }
    }

    @Test("S3 shutdown() shuts every pinned client down")
    func shutdownClosesAll() async throws {
        let origin = try await TestOrigin.start()
        var config = DownloaderConfig()
        config.hopAddress = { _ in "127.0.0.1" }
        let downloader = ImageDownloader(config: config)
        origin.register("/a.png", .image(Self.png))
        for host in ["one.invalid", "two.invalid", "three.invalid"] {
            _ = try await downloader.load(URL(string: "http://\(host):\(origin.port)/a.png")!)
        }
        #expect(downloader.pinnedClientCounts == .init(pooled: 3, open: 3))
        #expect(origin.openConnectionCount == 3)
        await downloader.shutdown()
        #expect(downloader.pinnedClientCounts == .init(pooled: 0, open: 0))
        #expect(await origin.waitUntil { $0.openConnectionCount == 0 })
        try await origin.shutdown()
    }

    @Test("S3 the pool keys clients by host and address, and makes none once shut down")
    func poolKeys() async throws {
        let pool = PinnedClientPool(configuration: HTTPClient.Configuration(), idleLifetime: .seconds(60), maxClients: 64)
        let first = try pool.lease(host: "a.invalid", address: "127.0.0.1")
        let again = try pool.lease(host: "a.invalid", address: "127.0.0.1")
        let moved = try pool.lease(host: "a.invalid", address: "127.0.0.2")
        let other = try pool.lease(host: "b.invalid", address: "127.0.0.1")
        #expect(first.client === again.client)
        #expect(moved.client !== first.client)
        #expect(other.client !== first.client && other.client !== moved.client)
        #expect(pool.counts == .init(pooled: 3, open: 3))
        for lease in [first, again, moved] { lease.end() }
        await pool.shutdown()
        #expect(pool.counts == .init(pooled: 0, open: 0))
        #expect(throws: ImageError.cancelled) { _ = try pool.lease(host: "a.invalid", address: "127.0.0.1") }
        other.end()  // a lease ending after the shutdown changes nothing
        #expect(pool.counts == .init(pooled: 0, open: 0))
    }

    /// Polls `condition` (without blocking) until it holds; false after 30 s.
    private static func waitUntil(_ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
