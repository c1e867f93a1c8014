import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// A loader that answers every URL with one status code and counts its calls.
private final class StatusLoader: ImageLoader {
    let status: Int
    let calls = Recorder<URL>()

    init(status: Int) { self.status = status }

    func canLoad(_ url: URL) -> Bool { url.host == "status.test" }

    func load(_ url: URL, options: DownloadOptions, progress: (@Sendable (DownloadProgress) -> Void)?) async throws(ImageError) -> DownloadResponse {
        calls.append(url)
        throw .invalidStatusCode(status)
    }
}

@Suite("ImageManager.shouldBlockFailedURL")
struct FailedURLRuleTests {
    static let url = URL(string: "http://status.test/signed.jpg")!

    /// Loads `url` twice through a manager over `loader`; returns the two errors.
    static func loadTwice(_ manager: ImageManager) async -> [ImageError] {
        var errors: [ImageError] = []
        for _ in 0..<2 {
            do throws(ImageError) {
                _ = try await manager.loadImage(from: url)
            } catch {
                errors.append(error)
            }
        }
        return errors
    }

    @Test("by default a 403 blocks its URL: the second load fails at once without a request")
    func defaultRuleBlocks403() async {
        let loader = StatusLoader(status: 403)
        let manager = ImageManager(cache: TestCaches.make(), loader: loader)
        #expect(await Self.loadTwice(manager) == [.invalidStatusCode(403), .blockedURL(Self.url)])
        #expect(loader.calls.count == 1)
        #expect(manager.failedURLs.isBlocked(Self.url))
    }

    @Test("a rule that lets 403 through leaves the URL unblocked, and is asked with the URL and the error")
    func customRuleDoesNotBlock403() async {
        let loader = StatusLoader(status: 403)
        let asked = Recorder<String>()
        let manager = ImageManager(cache: TestCaches.make(), loader: loader, shouldBlockFailedURL: { url, error in
            asked.append("\(url.absoluteString) \(error)")
            return error != .invalidStatusCode(403) && error.blocksURL
        })
        #expect(await Self.loadTwice(manager) == [.invalidStatusCode(403), .invalidStatusCode(403)])
        #expect(loader.calls.count == 2, "the second load asked the source again")
        #expect(!manager.failedURLs.isBlocked(Self.url))
        #expect(asked.values == Array(repeating: "\(Self.url.absoluteString) \(ImageError.invalidStatusCode(403))", count: 2))
    }

    @Test("a rule may block what the default never does (a 503)")
    func customRuleBlocks503() async {
        let loader = StatusLoader(status: 503)
        let manager = ImageManager(cache: TestCaches.make(), loader: loader, shouldBlockFailedURL: { _, _ in true })
        #expect(await Self.loadTwice(manager) == [.invalidStatusCode(503), .blockedURL(Self.url)])
        let defaultManager = ImageManager(cache: TestCaches.make(), loader: StatusLoader(status: 503))
        #expect(await Self.loadTwice(defaultManager) == [.invalidStatusCode(503), .invalidStatusCode(503)], "the default leaves 5xx unblocked")
    }

    @Test("the default rule is ImageError.blocksURL")
    func defaultRuleIsBlocksURL() {
        let errors: [ImageError] = [.invalidStatusCode(403), .invalidStatusCode(429), .invalidStatusCode(503), .badImageData("x"), .timedOut("x"), .notFound("x")]
        for error in errors {
            #expect(ImageManager.defaultShouldBlockFailedURL(Self.url, error) == error.blocksURL, "\(error)")
        }
    }
}
