import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// `DownloaderConfig.hopAddress`: each hop connects to the address the closure chose, not
/// to what DNS says, and keeps the URL's host in the request (the image proxy's defence
/// against DNS rebinding).
@Suite("Downloader hop addresses")
struct HopAddressTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 8, height: 8), as: .png)

    @Test("S3 a pinned hop connects to the chosen address and keeps the URL's host in Host")
    func pinnedHopConnectsToChosenAddress() async throws {
        let asked = Recorder<String>()
        try await withOriginAndDownloader(configure: { config in
            config.hopAddress = { url in
                asked.append(url.host ?? "")
                return "127.0.0.1"
            }
        }) { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            // `.invalid` never resolves (RFC 2606): only the pinned address can reach the origin.
            let url = URL(string: "http://pinned.invalid:\(origin.port)/a.png")!
            let response = try await downloader.load(url)
            #expect(response.data == Self.png)
            #expect(origin.lastRequest("/a.png")?.header("host") == "pinned.invalid:\(origin.port)")
            #expect(asked.values == ["pinned.invalid"])
        }
    }

    @Test("S3 every redirect hop is pinned; a refusal from the closure stops the transfer")
    func redirectsArePinnedAndRefusable() async throws {
        let asked = Recorder<String>()
        try await withOriginAndDownloader(configure: { config in
            config.hopAddress = { url in
                asked.append(url.path)
                if url.path == "/refused.png" { throw ImageError.forbiddenSource("test refusal") }
                return "127.0.0.1"
            }
        }) { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            origin.register("/hop", .redirect(to: "http://second.invalid:\(origin.port)/a.png"))
            origin.register("/bad", .redirect(to: "/refused.png"))
            origin.register("/refused.png", .image(Self.png))

            let response = try await downloader.load(URL(string: "http://first.invalid:\(origin.port)/hop")!)
            #expect(response.data == Self.png)
            #expect(asked.values == ["/hop", "/a.png"])

            await #expect(throws: ImageError.forbiddenSource("test refusal")) {
                _ = try await downloader.load(URL(string: "http://first.invalid:\(origin.port)/bad")!)
            }
            #expect(origin.requestCount("/refused.png") == 0)
        }
    }

    @Test("S3 nil from the closure resolves the host as usual")
    func nilResolvesAsUsual() async throws {
        try await withOriginAndDownloader(configure: { config in
            config.hopAddress = { _ in nil }
        }) { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            let response = try await downloader.load(origin.url("/a.png"))
            #expect(response.data == Self.png)
        }
    }
}
