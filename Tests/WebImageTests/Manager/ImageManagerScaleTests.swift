import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("ImageManager: the scale of the images it hands out")
struct ImageManagerScaleTests {
    /// A manager whose loader serves the still image under `names`.
    static func manager(
        serving names: [String], optionsProcessor: ImageManager.OptionsProcessor? = nil
    ) -> (ImageManager, RecordingLoader) {
        let loader = RecordingLoader()
        for name in names { loader.serve("/" + name, RequestFieldHarness.still) }
        return (ImageManager(cache: TestCaches.make(), loader: loader, optionsProcessor: optionsProcessor), loader)
    }

    static func url(_ name: String) -> URL { URL(string: "http://fields.test/" + name)! }

    @Test("an @2x name makes a scale-2 image, on the load, on a memory hit and on a disk hit")
    func scaleFromName() async throws {
        let (manager, _) = Self.manager(serving: ["icon@2x.jpg", "icon.jpg"])
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        let loaded = try await manager.loadImage(from: Self.url("icon@2x.jpg"), options: .waitStoreCache)
        #expect(loaded.image?.scale == 2 && loaded.image?.pixelSize == PixelSize(width: 64, height: 48))
        let memoryHit = try await manager.loadImage(from: Self.url("icon@2x.jpg"))
        #expect(memoryHit.cacheType == .memory && memoryHit.image?.scale == 2)
        manager.imageCache.clearMemory()
        let diskHit = try await manager.loadImage(from: Self.url("icon@2x.jpg"))
        #expect(diskHit.cacheType == .disk && diskHit.image?.scale == 2)
        #expect(try await manager.loadImage(from: Self.url("icon.jpg")).image?.scale == 1)
    }

    @Test("a revalidated @2x image is handed out at scale 2, cached and refreshed; the cache's own query decodes at the key's scale")
    func revalidationAndCacheQuery() async throws {
        let (manager, _) = Self.manager(serving: ["icon@2x.jpg"])
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        let url = Self.url("icon@2x.jpg")
        _ = try await manager.loadImage(from: url, options: .waitStoreCache)
        manager.imageCache.clearMemory()
        var scales: [Double?] = []
        for try await update in manager.results(from: url, options: .refreshCached) { scales.append(update.image?.scale) }
        #expect(scales == [2, 2])
        manager.imageCache.clearMemory()
        let hit = try #require(await manager.imageCache.query(forKey: url.absoluteString, cacheType: .disk))
        #expect(hit.image.scale == 2)
    }

    @Test("a thumbnail or a transform of an @3x source keeps its scale")
    func processedKeepTheScale() async throws {
        let (manager, _) = Self.manager(serving: ["icon@3x.jpg"])
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(width: 16, height: 16)
        #expect(try await manager.loadImage(from: Self.url("icon@3x.jpg"), context: context).image?.scale == 3)
        var transformed = ImageContext()
        transformed.transformer = ResizeTransformer(size: PixelSize(width: 10, height: 10), mode: .fill)
        #expect(try await manager.loadImage(from: Self.url("icon@3x.jpg"), context: transformed).image?.scale == 3)
    }

    @Test("an explicit scale wins over the name, on a load and on a memory hit of another scale")
    func explicitScaleWins() async throws {
        let (manager, _) = Self.manager(serving: ["icon@2x.jpg"])
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        _ = try await manager.loadImage(from: Self.url("icon@2x.jpg"))
        var context = ImageContext()
        context.imageScaleFactor = 3
        let hit = try await manager.loadImage(from: Self.url("icon@2x.jpg"), context: context)
        #expect(hit.cacheType == .memory && hit.image?.scale == 3)
        let request = ImageRequest(url: Self.url("icon@2x.jpg"), processing: ImageProcessing(scaleFactor: 1))
        #expect(try await manager.loadImage(request).image?.scale == 1)
        await #expect(throws: ImageError.invalidRequest(field: "processing.scaleFactor", reason: "must be a positive number of pixels per point, e.g. 2 for an @2x image")) {
            try await manager.loadImage(ImageRequest(url: Self.url("icon@2x.jpg"), processing: ImageProcessing(scaleFactor: 0)))
        }
    }

    // SDWebImageManagerTests.test11ThatOptionsProcessorWork: an options processor that
    // sets the scale factor in the context gives an image of that scale.
    @Test("SDWebImageManagerTests.test11ThatOptionsProcessorWork: the options processor's scale factor")
    func optionsProcessorScale() async throws {
        let processed = Recorder<URL>()
        let (manager, _) = Self.manager(serving: ["still.jpg"]) { url, options, context in
            processed.append(url)
            var context = context
            context.imageScaleFactor = 3
            return (options, context)
        }
        defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
        let result = try await manager.loadImage(from: Self.url("still.jpg"))
        #expect(result.image?.scale == 3)
        #expect(processed.values == [Self.url("still.jpg")])
    }
}
