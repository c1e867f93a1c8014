import Foundation
import NIOPosix
import Tracing

/// One prepared ``ImageManager/loadVariant(_:options:context:)``: its keys, caches, loader
/// and coder. `run` is the work shared by every request for the variant that runs at once.
struct VariantLoad: Sendable {
    let request: VariantRequest
    let options: ImageOptions
    let context: ImageContext
    /// The source's key; `nil` when the key filter says not to cache it.
    let originalKey: String?
    /// The variant's key; `nil` when the source is not to be cached.
    let key: String?
    let cache: any ImageCaching
    let originalCache: any ImageCaching
    let loader: any ImageLoader
    let coder: any ImageCoder
    let failedURLs: FailedURLs
    let policy: ImageCachePolicy
    /// The slots the making of a variant runs in; `nil`: no limit.
    let limiter: WorkLimiter?
    /// Told of every variant made.
    let events: ImageEvents
    /// Variants of one source that need it at once share one download and its store.
    let sourceFlights: SharedWorkPool<String, SharedWork<Source, Never>>

    /// What concurrent requests for this variant coalesce under (also when it has no cache key).
    var flightKey: String { key ?? request.url.absoluteString + " " + request.variantKey }

    /// Where the variant is looked up and kept: the context's cache types within what the
    /// policy keeps.
    private var variantQuery: CacheType { context.queryCacheType }
    private var variantStore: CacheType { context.storeCacheType.intersection(policy.encodedVariants) }
    private var originalStore: CacheType { context.originalStoreCacheType.intersection(policy.originals) }

    /// The source's bytes and where they came from; `stored`: a download already on disk.
    struct Source: Sendable {
        let data: Data
        let metadata: CacheMetadata
        let cacheType: CacheType
        var stored = false

        init(data: Data, metadata: CacheMetadata, cacheType: CacheType) {
            (self.data, self.metadata, self.cacheType) = (data, metadata, cacheType)
        }

        /// A source read from the originals' disk cache.
        init(cached entry: DiskCacheEntry) {
            self.init(data: entry.data, metadata: entry.metadata, cacheType: .disk)
        }
    }

    /// Names a cache lookup's span: which kind of entry, and whether it was found.
    private static func describeLookup(_ span: any Span, kind: String, hit: Bool) {
        span.attributes["webimage.cache.kind"] = kind
        span.attributes["webimage.cache.hit"] = hit
    }

    /// Names a disk write's span: which kind of entry, and how many bytes.
    private static func describeStore(_ span: any Span, kind: String, bytes: Int) {
        span.attributes["webimage.cache.kind"] = kind
        span.attributes["webimage.bytes"] = bytes
    }

    func run() async throws(ImageError) -> VariantResult {
        if variantQuery.includesDisk, let key, let variant = await cachedVariant(forKey: key) {
            if variantStore.includesMemory { cache.storeVariantToMemory(variant, forKey: key) }
            return VariantResult(variant: variant, cacheType: .disk)
        }
        guard let limiter else { return try await makeVariant() }
        return try await limiter.run { () throws(ImageError) -> VariantResult in try await makeVariant() }
    }

    /// Makes the variant from the cached source, else from a download.
    private func makeVariant() async throws(ImageError) -> VariantResult {
        if context.originalQueryCacheType.includesDisk, let originalKey {
            do throws(ImageError) {
                if let made = try await makeFromCachedSource(key: originalKey) { return made }
            } catch {
                // A cached source that is no image is removed and fetched afresh.
                guard case .badImageData = error else { throw error }
                await originalCache.remove(forKey: originalKey, cacheType: .disk)
            }
        }
        if options.contains(.fromCacheOnly) { throw .notInCache(key ?? request.url.absoluteString) }
        let downloaded = try await sharedDownload()
        do throws(ImageError) {
            return try await make(from: downloaded)
        } catch {
            failedURLs.record(request.url, error: error)
            // A source no variant can be made from does not stay in the cache.
            if downloaded.stored, let originalKey { await originalCache.remove(forKey: originalKey, cacheType: .disk) }
            throw error
        }
    }

    // MARK: Steps

    /// The variant from the disk cache, in a `webimage.cache.lookup` span.
    private func cachedVariant(forKey key: String) async -> EncodedVariant? {
        let cache = self.cache
        return await LibrarySpans.run("webimage.cache.lookup") { span async -> EncodedVariant? in
            let variant = await cache.entry(forKey: key).flatMap { EncodedVariant(entry: $0) }
            Self.describeLookup(span, kind: "variant", hit: variant != nil)
            return variant
        }
    }

    /// The source from the originals' disk cache, in a `webimage.cache.lookup` span.
    private func cachedSource() async -> Source? {
        guard let originalKey else { return nil }
        let originalCache = self.originalCache
        return await LibrarySpans.run("webimage.cache.lookup") { span async -> Source? in
            let entry = await originalCache.entry(forKey: originalKey)
            Self.describeLookup(span, kind: "original", hit: entry != nil)
            return entry.map(Source.init(cached:))
        }
    }

    private func download() async throws(ImageError) -> Source {
        if Task.isCancelled { throw .cancelled }
        guard loader.canLoad(request.url) else { throw .invalidURL(request.url.absoluteString) }
        let response: DownloadResponse
        let (url, loader, downloadOptions) = (request.url, self.loader, DownloadOptions(options: options, context: context))
        do throws(ImageError) {
            // The span is current during the load: the origin's `traceparent` names it.
            response = try await LibrarySpans.run("webimage.download") { span throws(ImageError) -> DownloadResponse in
                span.attributes["server.address"] = url.host ?? ""
                if let port = url.port { span.attributes["server.port"] = port }
                span.attributes["url.scheme"] = url.scheme ?? ""
                let response = try await loader.load(url, options: downloadOptions, progress: nil)
                span.attributes["http.response.status_code"] = response.head.statusCode
                span.attributes["webimage.bytes"] = response.data.count
                return response
            }
        } catch {
            failedURLs.record(request.url, error: error)
            throw error
        }
        if options.contains(.retryFailed) { failedURLs.remove(request.url) }
        var metadata = CacheMetadata(response: response.head)
        metadata.sourceURL = request.url
        return Source(data: response.data, metadata: metadata, cacheType: .none)
    }

    /// One download per source however many of its variants start before it is on disk:
    /// the variants that need the source while it downloads join one flight, which ends
    /// only once the source is in the disk cache, so a variant that starts later reads it
    /// from there (a flight that ended between this variant's lookup and its join is found
    /// by the lookup inside the new flight).
    private func sharedDownload() async throws(ImageError) -> Source {
        guard let originalKey, originalStore.includesDisk else { return try await download() }
        let load = self
        let (source, _) = try await sourceFlights.run(originalKey, keepRunning: options.contains(.continueInBackground)) { () throws(ImageError) -> Source in
            if load.context.originalQueryCacheType.includesDisk, let cached = await load.cachedSource() { return cached }
            var downloaded = try await load.download()
            await Self.store(downloaded.data, forKey: originalKey, metadata: downloaded.metadata, in: load.originalCache, kind: "original")
            downloaded.stored = true
            return downloaded
        }
        return source
    }

    /// The threads variants are made on: the limiter's, else the coding pool.
    private var codingThreads: NIOThreadPool { limiter?.threads ?? BlockingPools.coding }

    /// What one visit to the coding threads made: the variant, the source it was made from,
    /// and whether the variant is on disk already.
    private struct Made: Sendable {
        let variant: EncodedVariant
        let source: Source
        let storedVariant: Bool
    }

    /// Reads the cached source and makes the variant from it in one visit to the coding
    /// threads, then keeps it; `nil` when no source is cached. A cache whose
    /// ``ImageCaching/entrySync(forKey:)`` cannot answer there is asked asynchronously: by
    /// the shared download, or here when downloads are not stored.
    private func makeFromCachedSource(key originalKey: String) async throws(ImageError) -> VariantResult? {
        if Task.isCancelled { throw .cancelled }
        let load = self
        // The pool's threads have no task: the spans get their parent explicitly.
        let trace = LibrarySpans.currentContext
        let made = try await BlockingPools.run(on: codingThreads) { () throws(ImageError) -> Made? in
            let entry = LibrarySpans.run("webimage.cache.lookup", parent: trace) { span -> DiskCacheEntry? in
                let entry = load.originalCache.entrySync(forKey: originalKey)
                Self.describeLookup(span, kind: "original", hit: entry != nil)
                return entry
            }
            guard let entry else { return nil }
            return try load.makeAndStore(from: Source(cached: entry), trace: trace)
        }
        if let made { return await keep(made) }
        // The shared download looks the source up again before it downloads.
        if originalStore.includesDisk { return nil }
        guard let cached = await cachedSource() else { return nil }
        return try await make(from: cached)
    }

    /// Makes the variant from `source` on the coding threads, then keeps it (and a downloaded
    /// source) as the policy says. Nothing is stored when making it fails.
    private func make(from source: Source) async throws(ImageError) -> VariantResult {
        if Task.isCancelled { throw .cancelled }
        let load = self
        // The pool's threads have no task: the spans of decode, transform and encode get their parent explicitly.
        let trace = LibrarySpans.currentContext
        let made = try await BlockingPools.run(on: codingThreads) { () throws(ImageError) -> Made in
            try load.makeAndStore(from: source, trace: trace)
        }
        return await keep(made)
    }

    /// On a coding thread: makes the variant from `source` and, when the cache can store
    /// there, writes it to disk (a failed write is the cache's to report).
    private func makeAndStore(from source: Source, trace: ServiceContext?) throws(ImageError) -> Made {
        if let limit = context.maxSourceBytes, source.data.count > limit { throw .bodyTooLarge(limit: limit) }
        let variant = try Self.encodeVariant(request, from: source.data, metadata: source.metadata, coder: coder, limits: context.limits, trace: trace)
        guard let key, variantStore.includesDisk else { return Made(variant: variant, source: source, storedVariant: false) }
        let stored = LibrarySpans.run("webimage.store", parent: trace) { span -> Bool in
            Self.describeStore(span, kind: "variant", bytes: variant.count)
            do throws(ImageError) {
                return try cache.storeDataSync(variant.data, forKey: key, metadata: variant.metadata)
            } catch {
                return true
            }
        }
        return Made(variant: variant, source: source, storedVariant: stored)
    }

    /// Reports the variant made and keeps it (and a downloaded source) as the policy says:
    /// in memory, and on disk when ``makeAndStore(from:trace:)`` could not write it there.
    private func keep(_ made: Made) async -> VariantResult {
        let (variant, source) = (made.variant, made.source)
        let downloadedBytes = source.cacheType == .none ? source.data.count : 0
        events.emit(.variantMade(url: request.url, bytes: variant.count, sourceCacheType: source.cacheType, downloadedBytes: downloadedBytes))
        var writes: [Task<Void, Never>] = []
        if let key {
            if variantStore.includesMemory { cache.storeVariantToMemory(variant, forKey: key) }
            if variantStore.includesDisk, !made.storedVariant {
                let cache = self.cache
                writes.append(Task {
                    await Self.store(variant.data, forKey: key, metadata: variant.metadata, in: cache, kind: "variant")
                })
            }
        }
        if source.cacheType == .none, !source.stored, let originalKey, originalStore.includesDisk {
            let originalCache = self.originalCache
            writes.append(Task {
                await Self.store(source.data, forKey: originalKey, metadata: source.metadata, in: originalCache, kind: "original")
            })
        }
        if options.contains(.waitStoreCache) {
            for write in writes { await write.value }
        }
        return VariantResult(variant: variant, cacheType: .none, sourceCacheType: source.cacheType, downloadedBytes: downloadedBytes)
    }

    /// Writes `data` to the disk of `cache` in a `webimage.store` span; a failed write is
    /// the cache's to report.
    private static func store(_ data: Data, forKey key: String, metadata: CacheMetadata, in cache: any ImageCaching, kind: String) async {
        await LibrarySpans.run("webimage.store") { span async in
            describeStore(span, kind: kind, bytes: data.count)
            try? await cache.store(nil, data: data, forKey: key, metadata: metadata, cacheType: .disk)
        }
    }

    /// Reads the header of `data` (limits checked before any pixel), decodes it no larger
    /// than the request needs, transforms and encodes it; each step is a span under the one
    /// in `trace`, if any.
    static func encodeVariant(
        _ request: VariantRequest, from data: Data, metadata: CacheMetadata, coder: any ImageCoder, limits: ImageLimits,
        trace: ServiceContext? = nil
    ) throws(ImageError) -> EncodedVariant {
        if case .details(let includeGPS) = request.output {
            let details = try LibrarySpans.run("webimage.decode", parent: trace) { _ throws(ImageError) in
                try ImageDetails(data: data, coder: coder, limits: limits, includeGPS: includeGPS)
            }
            return EncodedVariant(
                data: try ImageDetails.json(details), pixelSize: PixelSize(width: details.width, height: details.height),
                sourceETag: metadata.etag, sourceLastModified: metadata.lastModified
            )
        }
        // Served as they are (no decode): every source, or those of the listed formats.
        if request.passthrough || !request.passthroughFormats.isEmpty {
            let info = try coder.inspect(data, limits: limits)
            if request.passthrough || request.passthroughFormats.contains(info.format) {
                return EncodedVariant(
                    data: data, pixelSize: info.uprightPixelSize, sourceETag: metadata.etag, sourceLastModified: metadata.lastModified
                )
            }
        }
        var candidates: [ImageFormat] = []
        // One header read: the plan (output formats, shrink-on-load size) comes from its facts.
        let (_, decoded) = try LibrarySpans.run("webimage.decode", parent: trace) { span throws(ImageError) in
            try coder.decode(data) { info throws(ImageError) -> ImageDecodeOptions in
                span.attributes["webimage.source.format"] = info.format.rawValue
                span.attributes["webimage.source.width"] = info.uprightPixelSize.width
                span.attributes["webimage.source.height"] = info.uprightPixelSize.height
                span.attributes["webimage.bytes"] = data.count
                let isAnimated = info.frameCount > 1
                candidates = request.output == .thumbHash
                    ? [.png]  // a still image: the first frame
                    : request.encoding.format.candidates(sourceFormat: info.format, hasAlpha: info.hasAlpha, isAnimated: isAnimated)
                let keepsAnimation = candidates.contains { $0.supportsAnimation }
                var options = ImageDecodeOptions(firstFrameOnly: !keepsAnimation, limits: limits)
                options.preferEmbeddedThumbnail = request.preferEmbeddedThumbnail
                // An embedded thumbnail's size is not in the header: it is decoded as it is.
                let mayShrink = !request.preferEmbeddedThumbnail
                if mayShrink, let box = request.thumbnailPixelSize {
                    options.thumbnailPixelSize = box
                } else if mayShrink, !isAnimated || !keepsAnimation,
                          let exact = request.transformer?.shrinkOnLoadSize(forSourceSize: info.uprightPixelSize) {
                    // The transformer's own scaled size, exactly (its aspect ratio is the source's).
                    options.thumbnailPixelSize = exact
                    options.preserveAspectRatio = false
                }
                return options
            }
        }
        let output = try request.transformer.map { transformer throws(ImageError) in
            try LibrarySpans.run("webimage.transform", parent: trace) { span throws(ImageError) in
                let output = try transformer.transform(decoded)
                span.attributes["webimage.width"] = output.pixelSize.width
                span.attributes["webimage.height"] = output.pixelSize.height
                return output
            }
        } ?? decoded
        if request.output == .thumbHash {
            let hash = try ThumbHash(image: output)
            return EncodedVariant(
                data: Data(hash.base64.utf8), pixelSize: output.pixelSize, sourceETag: metadata.etag,
                sourceLastModified: metadata.lastModified
            )
        }
        let choice = try LibrarySpans.run("webimage.encode", parent: trace) { span throws(ImageError) in
            let choice = try encodeSmallest(output, candidates: candidates, encoding: request.encoding, coder: coder)
            span.attributes["webimage.format"] = choice.format.rawValue
            span.attributes["webimage.bytes"] = choice.data.count
            span.attributes["webimage.encodes"] = choice.encodes
            if let quality = choice.quality { span.attributes["webimage.quality"] = quality }
            if let score = choice.score { span.attributes["webimage.score"] = score }
            return choice
        }
        return EncodedVariant(
            data: choice.data, pixelSize: output.pixelSize, sourceETag: metadata.etag, sourceLastModified: metadata.lastModified,
            quality: choice.quality, score: choice.score
        )
    }

    /// Encodes `image` in each candidate format (one, unless the format is
    /// ``VariantFormat/best(_:)``) and keeps the smallest result; `encodes` counts them all.
    /// With auto quality, a result that meets the target beats one that misses it whatever
    /// their sizes (a format may not reach the target even at its top quality).
    /// With several candidates, one that fails to encode is passed over; the error of the
    /// last is thrown when all fail.
    static func encodeSmallest(
        _ image: Image, candidates: [ImageFormat], encoding: VariantEncoding, coder: any ImageCoder
    ) throws(ImageError) -> EncodeChoice {
        var smallest: EncodeChoice?
        var encodes = 0
        var lastError: ImageError?
        for format in candidates {
            do {
                let choice = try QualitySearch.encode(
                    image, options: encoding.encodeOptions(for: format), auto: encoding.autoQuality, coder: coder
                )
                encodes += choice.encodes
                if let current = smallest {
                    if Self.isBetter(choice, than: current, target: encoding.autoQuality?.target) { smallest = choice }
                } else {
                    smallest = choice
                }
            } catch {
                guard candidates.count > 1 else { throw error }
                lastError = error
            }
        }
        guard let smallest else { throw lastError ?? .encodingFailed("no format to encode in") }
        return EncodeChoice(
            data: smallest.data, format: smallest.format, quality: smallest.quality, score: smallest.score, encodes: encodes
        )
    }

    /// Whether `candidate` should be served instead of `current`: it meets the quality
    /// target where `current` does not, or both are alike on that and it is smaller.
    static func isBetter(_ candidate: EncodeChoice, than current: EncodeChoice, target: Double?) -> Bool {
        if let target {
            let candidateMeets = (candidate.score ?? 1) >= target
            let currentMeets = (current.score ?? 1) >= target
            if candidateMeets != currentMeets { return candidateMeets }
        }
        return candidate.data.count < current.data.count
    }
}
