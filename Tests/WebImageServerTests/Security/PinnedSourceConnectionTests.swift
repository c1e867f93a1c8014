import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageLocking
import WebImageTestSupport

/// The source guard with the downloader's pooled, pinned connections: the guard
/// resolves and approves every hop; the hop runs on a keep-alive connection to the address
/// approved for it, never on one to an address approved earlier. Counts only, no timings.
@Suite("Proxy source connections")
struct PinnedSourceConnectionTests {
    /// DNS answers handed out in turn for one host (the last one repeats), counting the lookups.
    final class ScriptedDNS: Sendable {
        let host: String
        private let answers: [String]
        private let lookups = Locked(0)

        init(host: String, answers: [String]) {
            self.host = host
            self.answers = answers
        }

        var lookupCount: Int { lookups.withLock { $0 } }

        func resolve(_ name: String) throws(ImageError) -> [IPAddress] {
            guard name == host else { throw .network("no such host \(name)") }
            let index = lookups.withLock { count in
                count += 1
                return count - 1
            }
            return [IPAddress(parsing: answers[min(index, answers.count - 1)])!]
        }
    }

    /// A downloader whose every hop is resolved, checked and pinned by `sourceGuard`, as the
    /// proxy's is.
    private static func downloader(guardedBy sourceGuard: SourceGuard) -> ImageDownloader {
        var config = DownloaderConfig()
        config.hopAddress = { url in try await sourceGuard.address(for: url) }
        return ImageDownloader(config: config)
    }

    private static func isForbidden(_ error: ImageError?) -> Bool {
        if case .forbiddenSource = error { true } else { false }
    }

    @Test("S3 200 fetches of a host-named source through the guard reuse a handful of connections")
    func keepAliveThroughTheGuard() async throws {
        // The real resolver: `localhost` is looked up, approved (loopback allowed) and pinned.
        let sourceGuard = SourceGuard(sources: .allowing(loopback: true))
        let downloader = Self.downloader(guardedBy: sourceGuard)
        try await TestOrigin.with { origin in
            let urls = (0..<200).map { index in
                origin.register("/s/\(index).jpg", .image(ProxyImages.jpeg))
                return URL(string: "http://localhost:\(origin.port)/s/\(index).jpg")!
            }
            let bytes = try await withThrowingTaskGroup(of: Int.self) { group in
                for url in urls { group.addTask { try await downloader.load(url).data.count } }
                return try await group.reduce(0, +)
            }
            #expect(bytes == 200 * ProxyImages.jpeg.count)
            #expect(origin.totalRequestCount == 200)
            // A client per hop would count 200 here (one new connection per fetch).
            #expect(origin.connectionCount <= downloader.maxConcurrentDownloads + 2)
            #expect(downloader.pinnedClientCounts == .init(pooled: 1, open: 1))
        }
        await downloader.shutdown()
    }

    @Test("S3 a host whose next DNS answer is refused is refused before any connection, pooled one or not")
    func rebindingToRefusedAddress() async throws {
        let dns = ScriptedDNS(host: "rebind.test", answers: ["127.0.0.1", "169.254.169.254"])
        let sourceGuard = SourceGuard(sources: .allowing(loopback: true)) { host throws(ImageError) in
            try dns.resolve(host)
        }
        let downloader = Self.downloader(guardedBy: sourceGuard)
        try await TestOrigin.with { origin in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            origin.register("/b.jpg", .image(ProxyImages.jpeg))
            let first = try await downloader.load(URL(string: "http://rebind.test:\(origin.port)/a.jpg")!)
            #expect(first.data == ProxyImages.jpeg)
            // The pool holds a client with a keep-alive connection to 127.0.0.1 for the host…
            #expect(downloader.pinnedClientCounts == .init(pooled: 1, open: 1))
            #expect(origin.openConnectionCount == 1)

            // …and the next hop, whose answer is link-local, is refused all the same.
            let error = await #expect(throws: ImageError.self) {
                _ = try await downloader.load(URL(string: "http://rebind.test:\(origin.port)/b.jpg")!)
            }
            #expect(Self.isForbidden(error), "\(String(describing: error))")
            #expect(dns.lookupCount == 2)
            #expect(origin.totalRequestCount == 1)
            #expect(origin.requestCount("/b.jpg") == 0)
            #expect(origin.connectionCount == 1)
        }
        await downloader.shutdown()
    }

    @Test("S3 a host whose DNS answer moves to another allowed address connects to the new address")
    func answerMovesToAnotherAddress() async throws {
        // Two origins on one port: 127.0.0.2 first (ephemeral port), then 127.0.0.1 on it.
        let (old, new) = try await Self.twoOriginsOnOnePort()
        let dns = ScriptedDNS(host: "moving.test", answers: ["127.0.0.1", "127.0.0.2"])
        let sourceGuard = SourceGuard(sources: .allowing(loopback: true)) { host throws(ImageError) in
            try dns.resolve(host)
        }
        let downloader = Self.downloader(guardedBy: sourceGuard)
        do {
            for origin in [old, new] {
                origin.register("/a.jpg", .image(ProxyImages.jpeg))
                origin.register("/b.jpg", .image(ProxyImages.jpeg))
                origin.register("/c.jpg", .image(ProxyImages.jpeg))
            }
            let port = new.port
            _ = try await downloader.load(URL(string: "http://moving.test:\(port)/a.jpg")!)
            #expect(old.requestCount("/a.jpg") == 1)
            #expect(new.totalRequestCount == 0)

            // The answer moved: the fetch goes to 127.0.0.2, not over the open connection to 127.0.0.1.
            _ = try await downloader.load(URL(string: "http://moving.test:\(port)/b.jpg")!)
            _ = try await downloader.load(URL(string: "http://moving.test:\(port)/c.jpg")!)
            #expect(old.totalRequestCount == 1)
            #expect(new.requestCount("/b.jpg") == 1)
            #expect(new.requestCount("/c.jpg") == 1)
            #expect(new.lastRequest("/b.jpg")?.header("host") == "moving.test:\(port)")
            // The new address has a client (and a keep-alive connection) of its own.
            #expect(new.connectionCount == 1)
            #expect(downloader.pinnedClientCounts == .init(pooled: 2, open: 2))
        } catch {
            await downloader.shutdown()
            try? await old.shutdown()
            try? await new.shutdown()
            throw error
        }
        await downloader.shutdown()
        try await old.shutdown()
        try await new.shutdown()
    }

    @Test("S3 a redirect to another host is approved by the guard and pinned on a client of its own")
    func redirectThroughTheGuard() async throws {
        let sourceGuard = SourceGuard(sources: .allowing(loopback: true)) { host throws(ImageError) in
            switch host {
            case "first.test", "second.test": [IPAddress(parsing: "127.0.0.1")!]
            case "metadata.test": [IPAddress(parsing: "169.254.169.254")!]
            default: throw .network("no such host \(host)")
            }
        }
        let downloader = Self.downloader(guardedBy: sourceGuard)
        try await TestOrigin.with { origin in
            origin.register("/a.jpg", .image(ProxyImages.jpeg))
            origin.register("/hop", .redirect(to: "http://second.test:\(origin.port)/a.jpg"))
            origin.register("/bad", .redirect(to: "http://metadata.test:\(origin.port)/a.jpg"))
            let response = try await downloader.load(URL(string: "http://first.test:\(origin.port)/hop")!)
            #expect(response.data == ProxyImages.jpeg)
            #expect(origin.lastRequest("/a.jpg")?.header("host") == "second.test:\(origin.port)")
            #expect(downloader.pinnedClientCounts == .init(pooled: 2, open: 2))

            let error = await #expect(throws: ImageError.self) {
                _ = try await downloader.load(URL(string: "http://first.test:\(origin.port)/bad")!)
            }
            #expect(Self.isForbidden(error), "\(String(describing: error))")
            #expect(origin.requestCount("/bad") == 1)
            #expect(origin.requestCount("/a.jpg") == 1)
            #expect(downloader.pinnedClientCounts == .init(pooled: 2, open: 2))
        }
        await downloader.shutdown()
    }

    /// An origin on 127.0.0.1 and one on 127.0.0.2, listening on the same port.
    private static func twoOriginsOnOnePort() async throws -> (TestOrigin, TestOrigin) {
        var lastError: (any Error)?
        for _ in 0..<10 {
            let new = try await TestOrigin.start(host: "127.0.0.2")
            do {
                let old = try await TestOrigin.start(host: "127.0.0.1", port: new.port)
                return (old, new)
            } catch {
                // That port is taken on 127.0.0.1: try another.
                lastError = error
                try? await new.shutdown()
            }
        }
        throw lastError!
    }
}
