import Foundation
import Testing
import WebImage
import WebImageLocking
import WebImageTestSupport

/// A request's ``SourceConditions`` reach the source; a 304 ends the load with
/// `cacheNotModified`, leaves nothing cached and blocks nothing, and never reaches a
/// request that asked without conditions.
@Suite("ImageRequest: conditional source downloads")
struct SourceConditionsTests {
    static let jpeg: Data = try! TestImages.encode(try! TestImages.quadrants(width: 40, height: 30), as: .jpeg)
    static let etag = "\"v1\""
    static let lastModified = "Sun, 22 Nov 2026 00:00:00 GMT"

    func withManager(_ body: (TestOrigin, ImageManager) async throws -> Void) async throws {
        try await withOriginAndDownloader { origin, downloader in
            let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([downloader]))
            defer { try? FileManager.default.removeItem(atPath: manager.imageCache.config.rootDirectory) }
            origin.register("/a.jpg", handler: { request in
                if request.header("if-none-match") == Self.etag || request.header("if-modified-since") == Self.lastModified {
                    return .notModified(headers: [("ETag", Self.etag)])
                }
                return .image(Self.jpeg, headers: [("ETag", Self.etag), ("Last-Modified", Self.lastModified)])
            })
            try await body(origin, manager)
        }
    }

    static func variantRequest(_ url: URL, conditions: SourceConditions?) -> ImageRequest {
        var request = ImageRequest(url: url, output: .encoded(VariantEncoding(format: .fixed(.png))))
        request.processing.thumbnailPixelSize = PixelSize(width: 20, height: 20)
        request.sourceConditions = conditions
        return request
    }

    static func outcome(_ manager: ImageManager, _ request: ImageRequest) async -> Result<VariantResult, ImageError> {
        do throws(ImageError) {
            return .success(try await manager.loadVariant(request))
        } catch {
            return .failure(error)
        }
    }

    @Test("a 304 answer fails the load with cacheNotModified, caches nothing and blocks nothing", arguments: [
        SourceConditions(ifNoneMatch: etag),
        SourceConditions(ifModifiedSince: lastModified),
    ])
    func notModified(conditions: SourceConditions) async throws {
        try await withManager { origin, manager in
            let url = origin.url("/a.jpg")
            let request = Self.variantRequest(url, conditions: conditions)
            await #expect(throws: ImageError.cacheNotModified) { try await manager.loadVariant(request) }
            let sent = try #require(origin.lastRequest("/a.jpg"))
            #expect(sent.header("if-none-match") == conditions.ifNoneMatch)
            #expect(sent.header("if-modified-since") == conditions.ifModifiedSince)
            #expect(!manager.failedURLs.isBlocked(url))
            let key = try #require(manager.cacheKey(for: request))
            #expect(await manager.cache.diskData(forKey: key) == nil)
            #expect(await manager.cache.diskData(forKey: url.absoluteString) == nil)

            // Without conditions the same request is made, and carries the source's validators.
            let variant = try await manager.loadVariant(Self.variantRequest(url, conditions: nil)).variant
            #expect(variant.sourceETag == Self.etag)
            #expect(variant.sourceLastModified == Self.lastModified)
            #expect(origin.lastRequest("/a.jpg")?.header("if-none-match") == nil)
        }
    }

    @Test("a condition the source does not meet loads the bytes; a cached result never asks the source")
    func changedSourceAndCachedResult() async throws {
        try await withManager { origin, manager in
            let url = origin.url("/a.jpg")
            let stale = SourceConditions(ifNoneMatch: "\"v0\"")
            let made = try await manager.loadVariant(Self.variantRequest(url, conditions: stale))
            #expect(made.cacheType == CacheType.none)
            #expect(made.variant.sourceETag == Self.etag)
            #expect(origin.requestCount("/a.jpg") == 1)

            let current = SourceConditions(ifNoneMatch: Self.etag)
            let cached = try await manager.loadVariant(Self.variantRequest(url, conditions: current))
            #expect(cached.cacheType != CacheType.none)
            #expect(origin.requestCount("/a.jpg") == 1, "the cached variant answered")
        }
    }

    @Test("a conditional request and an unconditional one at once do not share the source's answer")
    func conditionalWorkIsNotShared() async throws {
        try await withManager { origin, manager in
            let gate = TestOriginGate()
            origin.register("/gated.jpg", handler: { request in
                if request.header("if-none-match") == Self.etag { return .gated(gate, then: .notModified(headers: [("ETag", Self.etag)])) }
                return .gated(gate, then: .image(Self.jpeg, headers: [("ETag", Self.etag)]))
            })
            let url = origin.url("/gated.jpg")
            async let conditional = Self.outcome(manager, Self.variantRequest(url, conditions: SourceConditions(ifNoneMatch: Self.etag)))
            async let plain = Self.outcome(manager, Self.variantRequest(url, conditions: nil))
            #expect(await gate.waitForArrivals(2))
            gate.open()
            let (answered, made) = await (conditional, plain)
            guard case .failure(.cacheNotModified) = answered else { Issue.record("expected cacheNotModified, got \(answered)"); return }
            #expect((try? made.get())?.variant.sourceETag == Self.etag)
            #expect(origin.requestCount("/gated.jpg") == 2)
        }
    }
}
