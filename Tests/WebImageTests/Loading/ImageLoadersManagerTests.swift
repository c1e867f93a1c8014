import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
import WebImageTestSupport

/// Serves one image for every URL of its scheme and records the URLs it loaded.
private final class SchemeLoader: ImageLoader {
    let scheme: String
    let body: Data
    let loads = Recorder<URL>()

    init(scheme: String, body: Data) {
        self.scheme = scheme
        self.body = body
    }

    func canLoad(_ url: URL) -> Bool { url.scheme == scheme }

    func load(_ url: URL, options: DownloadOptions, progress: (@Sendable (DownloadProgress) -> Void)?) async throws(ImageError) -> DownloadResponse {
        loads.append(url)
        return DownloadResponse(data: body, head: DownloadResponseHead(url: url, statusCode: 200, headers: HTTPHeaders()))
    }
}

@Suite("ImageLoadersManager")
struct ImageLoadersManagerTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 12, height: 8), as: .png)
    static let wide: Data = try! TestImages.encode(try! TestImages.quadrants(width: 30, height: 8), as: .png)

    /// A scheme no other test uses.
    static func uniqueScheme() -> String {
        "witest" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    @Test("a loader registered at run time serves a new scheme through ImageManager.shared, and stops when removed")
    func registerAtRunTimeThroughSharedManager() async throws {
        let scheme = Self.uniqueScheme()
        let url = try #require(URL(string: "\(scheme):///icons/star.png"))
        #expect(ImageManager.shared.loader as? ImageLoadersManager === ImageLoadersManager.shared)
        await #expect(throws: ImageError.invalidURL(url.absoluteString), "no loader for the scheme yet") {
            try await ImageManager.shared.loadImage(from: url, options: .cacheMemoryOnly)
        }

        #expect(!ImageManager.shared.failedURLs.isBlocked(url), "a scheme without a loader does not block the URL")

        let loader = SchemeLoader(scheme: scheme, body: Self.png)
        ImageLoadersManager.shared.addLoader(loader)
        defer { ImageLoadersManager.shared.removeLoader(loader) }
        // Kept in memory only, so that the shared cache's directory is left alone.
        let result = try await ImageManager.shared.loadImage(from: url, options: .cacheMemoryOnly)
        #expect(result.image?.pixelSize == PixelSize(width: 12, height: 8))
        #expect(result.cacheType == CacheType.none)
        #expect(loader.loads.values == [url])
        await ImageCache.shared.remove(forKey: url.absoluteString, cacheType: .memory)

        ImageLoadersManager.shared.removeLoader(loader)
        #expect(!ImageLoadersManager.shared.canLoad(url))
        await #expect(throws: ImageError.invalidURL(url.absoluteString)) {
            try await ImageManager.shared.loadImage(from: url, options: [.cacheMemoryOnly, .fromLoaderOnly])
        }
    }

    @Test("the loader added last is asked first; loaders can be removed by type or predicate")
    func priorityAndRemoval() async throws {
        let scheme = Self.uniqueScheme()
        let url = try #require(URL(string: "\(scheme):///a.png"))
        let loaders = ImageLoadersManager(loaders: [])
        let first = SchemeLoader(scheme: scheme, body: Self.png)
        let second = SchemeLoader(scheme: scheme, body: Self.wide)
        loaders.addLoader(first)
        loaders.addLoader(second)
        let manager = ImageManager(cache: TestCaches.make(), loader: loaders)
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }

        let result = try await manager.loadImage(from: url, options: .fromLoaderOnly)
        #expect(result.image?.pixelSize == PixelSize(width: 30, height: 8), "the second loader's image")
        #expect(first.loads.count == 0 && second.loads.count == 1)

        loaders.removeLoader(second)
        let again = try await manager.loadImage(from: url, options: .fromLoaderOnly)
        #expect(again.image?.pixelSize == PixelSize(width: 12, height: 8), "the first loader answers once the second is gone")
        #expect(loaders.removeLoaders(ofType: SchemeLoader.self) == 1)
        #expect(loaders.loaders.isEmpty)
        loaders.loaders = [FileLoader(), DataURLLoader()]
        #expect(loaders.removeLoaders { $0 is DataURLLoader } == 1)
        #expect(loaders.loaders.count == 1 && loaders.canLoad(URL(fileURLWithPath: "/tmp/x.png")))
    }

    @Test("the shared loaders handle http, https, file and data URLs")
    func sharedDefaults() {
        let shared = ImageLoadersManager.shared
        for string in ["http://example.com/a.png", "https://example.com/a.png", "file:///tmp/a.png", "data:image/png;base64,AA=="] {
            #expect(shared.canLoad(URL(string: string)!), "\(string)")
        }
        #expect(!shared.canLoad(URL(string: "ftp://example.com/a.png")!))
    }
}
