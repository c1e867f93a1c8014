import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// SDWebImage's shape of a request (``ImageOptions`` and ``ImageContext``) becomes one
/// ``ImageRequest``: every option and context knob lands in
/// a field of it (whose effect ``ImageRequestFieldTests`` checks), or fails the load naming it.
@Suite("ImageRequest from SDWebImage's options and context")
struct ImageRequestSDWebImageTests {
    static let url = URL(string: "https://example.com/a.jpg")!
    static let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([]))

    /// Each option that is a field of the request, and where it lands.
    static let optionFields: [(ImageOptions, String, @Sendable (ImageRequest) -> Bool)] = [
        (.retryFailed, "retryFailed", { $0.options.contains(.retryFailed) }),
        (.lowPriority, "lowPriority", { $0.priority == .low }),
        (.highPriority, "highPriority", { $0.priority == .high }),
        (.progressiveLoad, "progressiveLoad", { $0.options.contains(.progressiveLoad) }),
        (.refreshCached, "refreshCached", { $0.options.contains(.refreshCached) }),
        (.continueInBackground, "continueInBackground", { $0.options.contains(.continueInBackground) }),
        (.handleCookies, "handleCookies", { $0.options.contains(.handleCookies) }),
        (.allowInvalidSSLCertificates, "allowInvalidSSLCertificates", { $0.options.contains(.allowInvalidSSLCertificates) }),
        (.scaleDownLargeImages, "scaleDownLargeImages", { $0.processing.scaleDownLimitBytes == ImageContext().scaleDownLimitBytes }),
        (.queryMemoryData, "queryMemoryData", { $0.options.contains(.queryMemoryData) }),
        ([.queryMemoryData, .queryMemoryDataSync], "queryMemoryDataSync", { $0.options.contains(.queryMemoryDataSync) }),
        (.queryDiskDataSync, "queryDiskDataSync", { $0.options.contains(.queryDiskDataSync) }),
        (.fromCacheOnly, "fromCacheOnly", { $0.options.contains(.fromCacheOnly) }),
        (.fromLoaderOnly, "fromLoaderOnly", { $0.caching.query == CacheType.none }),
        (.decodeFirstFrameOnly, "decodeFirstFrameOnly", { $0.processing.firstFrameOnly }),
        (.waitStoreCache, "waitStoreCache", { $0.options.contains(.waitStoreCache) }),
        (.avoidDecodeImage, "avoidDecodeImage", { $0.output == .data }),
        (.cacheMemoryOnly, "cacheMemoryOnly", { $0.caching.store == .memory }),
    ]

    @Test("every option that means something off iOS is a field of the request")
    func optionsBecomeFields() throws {
        for (option, name, lands) in Self.optionFields {
            let request = try Self.manager.request(for: Self.url, options: option)
            #expect(lands(request), "\(name)")
        }
        var context = ImageContext()
        context.transformer = ResizeTransformer(size: PixelSize(width: 10, height: 10), mode: .fill)
        let animated = try Self.manager.request(for: Self.url, options: .transformAnimatedImage, context: context)
        #expect(animated.processing.transformsAnimations)
        #expect(try !Self.manager.request(for: Self.url, context: context).processing.transformsAnimations, "SDWebImage leaves animations alone")
        // Every option is accounted for: a field, or the three of image targets.
        let covered = Self.optionFields.reduce(ImageOptions.transformAnimatedImage) { $0.union($1.0) }
            .union([.avoidAutoSetImage, .delayPlaceholder, .avoidAutoCancelImage])
        #expect(covered == ImageOptions(rawValue: (1 << 23) - 1).subtracting(ImageOptions(rawValue: 1 << 15)))
    }

    @Test("every context knob is a field of the request")
    func contextKnobsBecomeFields() throws {
        let cache = TestCaches.make()
        let originals = TestCaches.make()
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(width: 20, height: 20)
        context.preserveAspectRatio = false
        context.transformer = ResizeTransformer(size: PixelSize(width: 10, height: 10), mode: .fill)
        context.scaleDownLimitBytes = 1234
        context.limits = ImageLimits(maxPixels: 99)
        context.maxSourceBytes = 77
        context.cacheKeyFilter = { _ in "k" }
        context.cacheSerializer = { _, data, _ in data }
        context.requestModifier = { $0 }
        context.responseModifier = { $0 }
        context.decryptor = { data, _ in data }
        context.queryCacheType = .disk
        context.storeCacheType = .memory
        context.originalQueryCacheType = .all
        context.originalStoreCacheType = .none
        context.cache = cache
        context.originalCache = originals
        context.loader = FileLoader()
        context.coder = QOICoder()
        context.imageScaleFactor = 3
        let executed = Recorder<Int>()
        context.callbackExecutor = ImageCallbackExecutor { work in
            executed.append(1)
            work()
        }
        let request = try Self.manager.request(for: Self.url, options: .scaleDownLargeImages, context: context)
        #expect(request.processing.thumbnailPixelSize == PixelSize(width: 20, height: 20) && !request.processing.preserveAspectRatio)
        #expect(request.processing.transformer?.key == context.transformer?.key && request.processing.scaleDownLimitBytes == 1234)
        #expect(request.limits == ImageLimits(maxPixels: 99) && request.maxSourceBytes == 77)
        #expect(request.caching.keyFilter?(Self.url) == "k" && request.caching.serializer != nil)
        #expect(request.requestModifier != nil && request.responseModifier != nil && request.decryptor != nil)
        #expect(request.caching.query == .disk && request.caching.store == .memory)
        #expect(request.caching.originals?.query == .all && request.caching.originals?.store == CacheType.none)
        #expect(request.caching.cache as? ImageCache === cache && request.caching.originals?.cache as? ImageCache === originals)
        #expect(request.loader is FileLoader && request.coder is QOICoder)
        #expect(request.processing.scaleFactor == 3)
        request.callbackExecutor?.execute {}
        #expect(executed.values == [1], "the context's executor")
    }

    @Test("the manager's default scale is left out of undecoded bytes, which it cannot apply to")
    func scaleOnBytes() throws {
        var defaults = ImageContext()
        defaults.imageScaleFactor = 2
        defaults.callbackExecutor = ImageCallbackExecutor { $0() }
        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([]), defaultContext: defaults)
        let bytes = try manager.request(for: Self.url, options: .avoidDecodeImage)
        #expect(bytes.processing.scaleFactor == nil && bytes.output == .data)
        #expect(try manager.request(for: Self.url).processing.scaleFactor == 2)
    }

    @Test("image-target settings, and knobs of the caller's context that cannot apply, fail the load naming them")
    func settingsThatCannotApply() async throws {
        for (option, name) in [(ImageOptions.avoidAutoSetImage, "avoidAutoSetImage"), (.delayPlaceholder, "delayPlaceholder"), (.avoidAutoCancelImage, "avoidAutoCancelImage")] {
            #expect(throws: ImageError.invalidRequest(field: "ImageOptions." + name, reason: "applies to image targets (setImage); drop it from this load")) {
                try Self.manager.request(for: Self.url, options: option)
            }
        }
        var target = ImageContext()
        target.operationKey = "cell"
        #expect(throws: ImageError.self) { try Self.manager.request(for: Self.url, context: target) }
        var originals = ImageContext()
        originals.originalCache = TestCaches.make()
        await #expect(throws: ImageError.self) { try await Self.manager.loadImage(from: Self.url, context: originals) }
        #expect(throws: ImageError.self) { try Self.manager.request(for: Self.url, options: .transformAnimatedImage) }
    }

    @Test("an option and the request flag of the same name have the same bit")
    func requestFlagBits() {
        let pairs: [(ImageOptions, ImageRequest.Options)] = [
            (.retryFailed, .retryFailed), (.progressiveLoad, .progressiveLoad), (.refreshCached, .refreshCached),
            (.continueInBackground, .continueInBackground), (.handleCookies, .handleCookies),
            (.allowInvalidSSLCertificates, .allowInvalidSSLCertificates), (.fromCacheOnly, .fromCacheOnly), (.waitStoreCache, .waitStoreCache),
            (.queryMemoryData, .queryMemoryData), (.queryMemoryDataSync, .queryMemoryDataSync), (.queryDiskDataSync, .queryDiskDataSync),
        ]
        #expect(pairs.count == ImageRequest.Options.names.count, "every request flag is paired")
        for (option, flag) in pairs {
            #expect(option.rawValue == flag.rawValue)
            #expect(ImageRequest.Options(option) == flag && ImageOptions(flag) == option)
        }
        #expect(ImageRequest.Options([.lowPriority, .scaleDownLargeImages, .avoidAutoSetImage]).isEmpty, "options that are fields or a target's")
    }
}
