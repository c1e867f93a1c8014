import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
import WebImageTestSupport

/// A request modifier that changes the method and the body, and what redirects make of them.
@Suite("Request modifier method and body")
struct RequestMethodAndBodyTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 8, height: 8), as: .png)
    static let form = Data("size=large&watermark=off".utf8)

    /// A modifier that turns the first hop into a form POST; later hops are left as the redirect made them.
    static func postingFirstHop(to original: URL) -> RequestModifier {
        { request in
            guard request.url == original else { return request }
            var request = request
            request.method = .POST
            request.body = form
            request.headers.replaceOrAdd(name: "Content-Type", value: "application/x-www-form-urlencoded")
            return request
        }
    }

    @Test("D10 a request modifier sends a POST with a body; the origin receives both")
    func postWithBody() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/render") { request in
                request.method == "POST" && request.body == Self.form ? .image(Self.png) : .status(405)
            }
            var options = DownloadOptions()
            options.requestModifier = Self.postingFirstHop(to: origin.url("/render"))
            let response = try await downloader.load(origin.url("/render"), options: options)
            #expect(response.data == Self.png)
            let received = try #require(origin.lastRequest("/render"))
            #expect(received.method == "POST" && received.body == Self.form)
            #expect(received.header("content-type") == "application/x-www-form-urlencoded")
            #expect(received.header("content-length") == "\(Self.form.count)")
        }
    }

    @Test("D10 a 303 turns the POST into a GET without a body; a 307 repeats the POST with its body")
    func redirectsOfAPost() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/see-other", .redirect(to: "/result.png", status: 303))
            origin.register("/result.png", .image(Self.png))
            origin.register("/temporary", .redirect(to: "/render", status: 307))
            origin.register("/render") { request in
                request.method == "POST" && request.body == Self.form ? .image(Self.png) : .status(405)
            }

            var options = DownloadOptions()
            options.requestModifier = Self.postingFirstHop(to: origin.url("/see-other"))
            _ = try await downloader.load(origin.url("/see-other"), options: options)
            #expect(origin.lastRequest("/see-other")?.method == "POST")
            let followed = try #require(origin.lastRequest("/result.png"))
            #expect(followed.method == "GET" && followed.body.isEmpty)

            options.requestModifier = Self.postingFirstHop(to: origin.url("/temporary"))
            let response = try await downloader.load(origin.url("/temporary"), options: options)
            #expect(response.data == Self.png)
            let repeated = try #require(origin.lastRequest("/render"))
            #expect(repeated.method == "POST" && repeated.body == Self.form)
        }
    }

    @Test("D10 without a modifier a download is a GET without a body")
    func defaultIsGet() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/a.png", .image(Self.png))
            _ = try await downloader.load(origin.url("/a.png"))
            let received = try #require(origin.lastRequest("/a.png"))
            #expect(received.method == "GET" && received.body.isEmpty)
        }
    }
}
