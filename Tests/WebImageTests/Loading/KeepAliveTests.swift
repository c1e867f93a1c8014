import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// ``DownloaderConfig/keepAliveTimeout``: connections to a source kept for the next
/// download, closed after it when idle that long, or closed after each download at zero.
@Suite("Downloader keep-alive to sources")
struct KeepAliveTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 8, height: 8), as: .png)

    @Test("kept by default: the next download reuses the connection")
    func kept() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            for index in 0..<3 { _ = try await downloader.load(origin.url("/a.png?\(index)")) }
            #expect(origin.connectionCount == 1)
            #expect(origin.requests("/a.png").count == 3)
            #expect(origin.requests("/a.png").allSatisfy { $0.header("connection") != "close" })
        }
    }

    @Test("an idle connection is closed once the keep-alive timeout passes")
    func closedWhenIdle() async throws {
        try await withOriginAndDownloader(configure: { $0.keepAliveTimeout = .milliseconds(200) }) { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            _ = try await downloader.load(origin.url("/a.png"))
            #expect(await eventually { origin.openConnectionCount == 0 }, "the client closed the idle connection")
            _ = try await downloader.load(origin.url("/a.png?again"))
            #expect(origin.connectionCount == 2)
        }
    }

    @Test("zero: every download asks the source to close its connection, and none is reused")
    func off() async throws {
        try await withOriginAndDownloader(configure: { $0.keepAliveTimeout = .zero }) { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            for index in 0..<3 { _ = try await downloader.load(origin.url("/a.png?\(index)")) }
            #expect(origin.connectionCount == 3)
            let requests = origin.requests("/a.png")
            #expect(requests.count == 3)
            #expect(requests.allSatisfy { $0.header("connection") == "close" })
        }
    }
}
