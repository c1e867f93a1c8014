import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import WebImage
import WebImageTestSupport

/// The library's DocC article "Variants and serving them from your own server": a
/// Hummingbird route of a user's own that serves encoded variants through the library,
/// written as the article writes it (only the source's base URL differs), and run.
enum ThumbnailRoute {
    static func add(to router: Router<BasicRequestContext>, manager: ImageManager, sourceBase: String) {
        router.get("thumbs/:width/**") { _, context -> Response in
            let width = min(2000, max(1, try context.parameters.require("width", as: Int.self)))
            // The article: guard let source = URL(string: "https://images.example.com/" + context.parameters.getCatchAll().joined(separator: "/")) else {
            guard let source = URL(string: sourceBase + context.parameters.getCatchAll().joined(separator: "/")) else {
                throw HTTPError(.badRequest)
            }
            let request = ImageRequest(
                url: source,
                processing: ImageProcessing(transformer: ResizeTransformer(size: PixelSize(width: width, height: width), mode: .fit)),
                output: .encoded(VariantEncoding(format: .fixed(.webp), quality: 75))
            )
            do throws(ImageError) {
                let variant = try await manager.loadVariant(request).variant
                return Response(status: .ok, headers: [.contentType: variant.format.mimeType, .eTag: variant.etag], body: ResponseBody(byteBuffer: variant.bytes))
            } catch {
                throw HTTPError(.badGateway, message: error.description)
            }
        }
    }
}

@Suite("A user's own Hummingbird route")
struct UserRouteTests {
    @Test("the article's thumbnail route serves a WebP variant, made once and then cached")
    func thumbnailRoute() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let png = try TestImages.encode(try TestImages.quadrants(width: 400, height: 200), as: .png)
            origin.register("/photos/cat.png", .image(png))
            let cache = TestCaches.make()
            defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
            let manager = ImageManager(cache: cache, loader: ImageLoaders([downloader]), variantWorkLimiter: WorkLimiter(workers: 2, queueSize: 16))
            let router = Router()
            ThumbnailRoute.add(to: router, manager: manager, sourceBase: origin.url("/").absoluteString)
            let app = Application(router: router)
            try await app.test(.router) { client in
                for _ in 0..<2 {
                    try await client.execute(uri: "/thumbs/100/photos/cat.png", method: .get) { response in
                        #expect(response.status == .ok)
                        #expect(response.headers[.contentType] == "image/webp")
                        let image = try VipsCoder.shared.decode(Data(buffer: response.body))
                        #expect(image.pixelSize == PixelSize(width: 100, height: 50))
                    }
                }
                try await client.execute(uri: "/thumbs/100/photos/missing.png", method: .get) { response in
                    #expect(response.status == .badGateway)
                }
            }
            #expect(origin.requestCount("/photos/cat.png") == 1)
        }
    }
}
