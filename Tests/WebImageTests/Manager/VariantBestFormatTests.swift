import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// `VariantFormat.best` and `VariantEncoding.autoQuality` through the manager.
@Suite("ImageManager best format and auto quality")
struct VariantBestFormatTests {
    static let photo = TestImages.samplePhoto
    static let graphic = try! TestImages.encode(try! TestImages.quadrants(width: 400, height: 300), as: .png)
    static let withAlpha = try! TestImages.encode(try! TestImages.halfTransparent(width: 400, height: 300), as: .png)

    static func request(_ url: URL, _ format: VariantFormat, auto: AutoQuality? = nil) -> ImageRequest {
        ImageRequest.variant(
            url: url, transformer: ResizeTransformer(size: PixelSize(width: 320, height: 240), mode: .fit),
            encoding: VariantEncoding(format: format, quality: 75, autoQuality: auto)
        )
    }

    @Test("best is never larger than any single candidate, and is one of them", arguments: ["photo", "graphic", "alpha"])
    func neverLarger(_ name: String) async throws {
        try await ImageManagerVariantTests.withVariantManager { origin, manager, coder in
            let data = name == "photo" ? Self.photo : name == "graphic" ? Self.graphic : Self.withAlpha
            origin.register("/\(name)", .image(data))
            let url = origin.url("/\(name)")
            let best = try await manager.loadVariant(Self.request(url, .best)).variant
            let candidates: [ImageFormat] = name == "alpha" ? [.png, .webp, .avif] : [.jpeg, .png, .webp, .avif]
            #expect(coder.encodeCount == candidates.count, "one encode per candidate")
            var sizes: [ImageFormat: Int] = [:]
            for format in candidates {
                sizes[format] = try await manager.loadVariant(Self.request(url, .fixed(format))).variant.count
            }
            #expect(best.count <= sizes.values.min()!, "\(name): best \(best.format) \(best.count) vs \(sizes)")
            #expect(sizes[best.format] == best.count)
            if name == "alpha" { #expect(best.format != .jpeg) }
            if name == "photo" { #expect(best.format != .png) }
        }
    }

    @Test("best with auto quality: every candidate searched within budget; a result meeting the target wins")
    func bestWithAutoQuality() async throws {
        try await ImageManagerVariantTests.withVariantManager { origin, manager, coder in
            origin.register("/photo", .image(Self.photo))
            let auto = AutoQuality(target: 0.985)
            let result = try await manager.loadVariant(Self.request(origin.url("/photo"), .best([.jpeg, .webp]), auto: auto))
            #expect(coder.encodeCount <= 2 * auto.maxEncodes && coder.encodeCount > 2)
            let score = try #require(result.variant.score)
            #expect(score >= 0.985)
            #expect(result.variant.quality != nil)
        }
    }

    @Test("the chosen quality and score come back from memory and from disk")
    func qualityPersisted() async throws {
        let cache = TestCaches.make { $0.shouldCacheImagesInMemory = false }
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        var url: URL?
        var made: EncodedVariant?
        try await ImageManagerVariantTests.withVariantManager(cache: cache) { origin, manager, _ in
            origin.register("/photo", .image(Self.photo))
            url = origin.url("/photo")
            made = try await manager.loadVariant(Self.request(origin.url("/photo"), .fixed(.webp), auto: AutoQuality()).adding(.waitStoreCache)).variant
            let hit = try await manager.loadVariant(Self.request(origin.url("/photo"), .fixed(.webp), auto: AutoQuality()))
            #expect(hit.cacheType == .memory && hit.variant.quality == made?.quality)
        }
        try await ImageManagerVariantTests.withVariantManager(cache: ImageCache(config: cache.config)) { _, manager, coder in
            let hit = try await manager.loadVariant(Self.request(try #require(url), .fixed(.webp), auto: AutoQuality()))
            #expect(hit.cacheType == .disk && coder.encodeCount == 0)
            #expect(hit.variant.quality == made?.quality && hit.variant.quality != nil)
            #expect(hit.variant.score == made?.score && hit.variant.score != nil)
        }
    }

    @Test("keys: best and auto quality name themselves; a fixed-quality variant keys apart from an auto one")
    func keys() {
        #expect(VariantFormat.best.key == "best(jpg,png,webp,avif)")
        let auto = VariantEncoding(format: .best, autoQuality: AutoQuality()).key
        let fixed = VariantEncoding(format: .best).key
        #expect(auto != fixed && auto.contains("auto(0.985"))
        #expect(VariantFormat.best.candidates(sourceFormat: .png, hasAlpha: true, isAnimated: false) == [.png, .webp, .avif])
        #expect(VariantFormat.best.candidates(sourceFormat: .gif, hasAlpha: false, isAnimated: true) == [.webp])
        #expect(VariantFormat.best([.jpeg]).candidates(sourceFormat: .png, hasAlpha: true, isAnimated: false) == [.png])
    }
}
