import Foundation
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

@Suite("ImageRequest: one pipeline for every output")
struct ImageRequestTests {
    static let jpeg: Data = try! TestImages.encode(try! TestImages.quadrants(width: 80, height: 60), as: .jpeg)

    @Test("a transformed image load and a variant load of the same transform share one download, one decode and one transform")
    func imageAndVariantShareTheirStages() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let gate = TestOriginGate()
            origin.register("/shared.jpg", .gated(gate, then: .image(Self.jpeg, contentType: "image/jpeg")))
            let coder = RecordingCoder()
            let cache = TestCaches.make()
            defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
            let manager = ImageManager(cache: cache, loader: downloader, coder: coder)
            let transformer = CountingFillTransformer()
            let url = origin.url("/shared.jpg")
            var context = ImageContext()
            context.transformer = transformer

            async let image = manager.loadImage(from: url, context: context)
            async let variant = manager.loadVariant(ImageRequest.variant(url: url, transformer: transformer))
            #expect(await gate.waitForArrivals(1))
            // Both requests are waiting on the stages before the download is answered.
            #expect(await eventually { manager.pipeline.processed.count == 1 && manager.pipeline.variants.count == 1 && manager.pipeline.images.count == 1 })
            gate.open()
            let (imageResult, variantResult) = try await (image, variant)

            #expect(origin.requestCount("/shared.jpg") == 1)
            #expect(coder.decodes.count == 1)
            #expect(transformer.calls == 1)
            #expect(imageResult.image?.pixelSize == PixelSize(width: 10, height: 10))
            #expect(variantResult.variant.pixelSize == PixelSize(width: 10, height: 10) && variantResult.variant.format == .jpeg)
        }
    }

    @Test("requests for one custom source at once share one call of its closure; its key is the cache key")
    func customSourcesCoalesce() async throws {
        let cache = TestCaches.make()
        defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
        let manager = ImageManager(cache: cache, loader: ImageLoaders([]))
        let calls = InlineLocked(0)
        let gate = TestOriginGate()
        let request = ImageRequest(source: .custom(key: "avatars/42") { () throws(ImageError) -> Data in
            calls.withLock { $0 += 1 }
            await gate.wait()
            return Self.jpeg
        })
        async let first = manager.loadImage(request)
        async let second = manager.loadImage(request)
        #expect(await eventually { calls.withLock { $0 } == 1 })
        gate.open()
        let results = try await [first, second]
        #expect(calls.withLock { $0 } == 1)
        #expect(results.allSatisfy { $0.image?.pixelSize == PixelSize(width: 80, height: 60) && $0.url.absoluteString == "webimage-custom:avatars/42" })
        #expect(manager.cacheKey(for: request) == "avatars/42")
        #expect(try await manager.loadImage(request).cacheType == .memory)
        #expect(await cache.diskData(forKey: "avatars/42") == Self.jpeg)
    }

    @Test("a custom source refuses the fields of URL downloads, naming each")
    func customSourcesRefuseDownloadFields() async throws {
        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([]))
        let base = ImageRequest(source: .custom(key: "k") { () throws(ImageError) -> Data in Self.jpeg })
        let settings: [(String, @Sendable (inout ImageRequest) -> Void)] = [
            ("loader", { $0.loader = FileLoader() }),
            ("sourceConditions", { $0.sourceConditions = SourceConditions(ifNoneMatch: "\"a\"") }),
            ("retryPolicy", { $0.retryPolicy = .never }),
            ("requestModifier", { $0.requestModifier = { $0 } }),
            ("responseModifier", { $0.responseModifier = { $0 } }),
            ("decryptor", { $0.decryptor = { data, _ in data } }),
            ("caching.keyFilter", { $0.caching.keyFilter = { _ in "x" } }),
            ("options.handleCookies", { $0.options.insert(.handleCookies) }),
            ("options.allowInvalidSSLCertificates", { $0.options.insert(.allowInvalidSSLCertificates) }),
            ("priority", { $0.priority = .high }),
        ]
        for (name, set) in settings {
            var request = base
            set(&request)
            do throws(ImageError) {
                _ = try await manager.loadImage(request)
                Issue.record("\(name) was not refused")
            } catch {
                guard case .invalidRequest(let field, _) = error else { Issue.record("\(name): \(error)"); continue }
                #expect(field == name)
            }
        }
    }

    @Test("each call hands out its own kind of output: an encoded request refused by loadImage, an image by loadVariant")
    func outputsGoThroughTheirCall() async throws {
        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([]))
        let url = URL(string: "http://127.0.0.1:9/a.jpg")!
        await #expect(throws: ImageError.self) { try await manager.loadImage(ImageRequest(url: url, output: .thumbHash)) }
        await #expect(throws: ImageError.self) { try await manager.loadVariant(ImageRequest(url: url)) }
        do throws(ImageError) {
            _ = try await manager.loadVariant(ImageRequest(url: url, output: .data))
            Issue.record("an image output went through loadVariant")
        } catch {
            guard case .invalidRequest(let field, _) = error else { Issue.record("\(error)"); return }
            #expect(field == "output")
        }
    }

    @Test("the data output: checked from its header, never decoded, kept as it came and read back from disk")
    func dataOutput() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/bytes.jpg", .image(Self.jpeg, contentType: "image/jpeg"))
            let coder = RecordingCoder()
            let cache = TestCaches.make()
            defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
            let manager = ImageManager(cache: cache, loader: downloader, coder: coder)
            let request = ImageRequest(url: origin.url("/bytes.jpg"), output: .data)
            let loaded = try await manager.loadImage(request)
            #expect(loaded.image == nil && loaded.data == Self.jpeg && loaded.cacheType == CacheType.none)
            let again = try await manager.loadImage(request)
            #expect(again.data == Self.jpeg && again.cacheType == .disk)
            #expect(coder.decodes.isEmpty)
            #expect(origin.requestCount("/bytes.jpg") == 1)
        }
    }

    @Test("refreshCached on an encoded output: the cached variant while the source is unchanged (304), a new one from a changed source")
    func refreshedVariants() async throws {
        let newer = try TestImages.encode(try TestImages.quadrants(width: 120, height: 40), as: .jpeg)
        try await withOriginAndDownloader { origin, downloader in
            let version = InlineLocked("v1")
            origin.register("/r.jpg", handler: { request in
                let current = version.withLock { $0 }
                let etag = "\"\(current)\""
                if request.header("if-none-match") == etag { return .notModified(headers: [("ETag", etag)]) }
                return .image(current == "v1" ? Self.jpeg : newer, contentType: "image/jpeg", headers: [("ETag", etag)])
            })
            let cache = TestCaches.make()
            defer { try? FileManager.default.removeItem(atPath: cache.config.rootDirectory) }
            let manager = ImageManager(cache: cache, loader: downloader)
            var request = ImageRequest(url: origin.url("/r.jpg"), output: .encoded(VariantEncoding(format: .fixed(.png))))
            request.processing.transformer = ResizeTransformer(size: PixelSize(width: 40, height: 40), mode: .fit)
            let first = try await manager.loadVariant(request)
            #expect(first.variant.pixelSize == PixelSize(width: 40, height: 30))

            request.options.insert(.refreshCached)
            let unchanged = try await manager.loadVariant(request)
            #expect(unchanged.cacheType == .memory && unchanged.variant.etag == first.variant.etag)
            #expect(origin.lastRequest("/r.jpg")?.header("if-none-match") == "\"v1\"")

            version.withLock { $0 = "v2" }
            let changed = try await manager.loadVariant(request)
            #expect(changed.cacheType == CacheType.none && changed.sourceCacheType == CacheType.none)
            #expect(changed.variant.pixelSize == PixelSize(width: 40, height: 13) && changed.variant.sourceETag == "\"v2\"")
            request.options.remove(.refreshCached)
            #expect(try await manager.loadVariant(request).variant.etag == changed.variant.etag, "the new variant replaced the old")
            #expect(origin.requestCount("/r.jpg") == 3)
        }
    }
}
