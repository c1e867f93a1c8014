import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

/// The five things a request can ask for, each through the call that hands it out.
enum RequestPath: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case image, data, encoded, details, thumbHash

    var output: ImageOutput {
        switch self {
        case .image: .image
        case .data: .data
        case .encoded: .encoded(VariantEncoding(format: .matchingSource))
        case .details: .details(includeGPS: false)
        case .thumbHash: .thumbHash
        }
    }

    var isImage: Bool { output.isImage }
    var testDescription: String { rawValue }
}

/// What a load handed out.
enum RequestOutcome: Sendable {
    case image(ImageResult)
    case variant(VariantResult)

    var pixelSize: PixelSize? {
        switch self {
        case .image(let result): result.image?.pixelSize
        case .variant(let result): result.variant.pixelSize
        }
    }

    var cacheType: CacheType {
        switch self {
        case .image(let result): result.cacheType
        case .variant(let result): result.cacheType
        }
    }
}

/// A loader of `http://fields.test/<name>` serving bytes from memory. It records what each
/// load asked for, answers a conditional request for its ETag with 304, refuses a body over
/// the request's limit, and holds loads while its gate is closed.
final class RecordingLoader: ImageLoader {
    struct Load: Sendable {
        let url: URL
        let options: DownloadOptions
    }

    private struct State {
        var bodies: [String: Data] = [:]
        var loads: [Load] = []
        var gateOpen = true
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    static let etag = "\"v1\""
    private let state = InlineLocked(State())

    func serve(_ path: String, _ data: Data) { state.withLock { $0.bodies[path] = data } }
    var loads: [Load] { state.withLock { $0.loads } }
    var lastOptions: DownloadOptions? { loads.last?.options }

    func closeGate() { state.withLock { $0.gateOpen = false } }
    func openGate() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.gateOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func canLoad(_ url: URL) -> Bool { url.host == "fields.test" }

    func load(_ url: URL, options: DownloadOptions, progress: (@Sendable (DownloadProgress) -> Void)?) async throws(ImageError) -> DownloadResponse {
        state.withLock { $0.loads.append(Load(url: url, options: options)) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state -> Bool in
                if !state.gateOpen { state.waiting.append(continuation) }
                return state.gateOpen
            }
            if open { continuation.resume() }
        }
        if Task.isCancelled { throw .cancelled }
        guard let data = state.withLock({ $0.bodies[url.path] }) else { throw .invalidStatusCode(404) }
        if options.headers["If-None-Match"].contains(Self.etag) { throw .cacheNotModified }
        if let limit = options.maxBodySize, data.count > limit { throw .bodyTooLarge(limit: limit) }
        let half = data.count / 2
        progress?(DownloadProgress(receivedBytes: half, expectedBytes: data.count, partialData: options.wantsPartialData ? data.prefix(half) : nil))
        let headers: HTTPHeaders = ["ETag": Self.etag, "Content-Type": "image/" + ImageFormat(data: data).rawValue]
        return DownloadResponse(data: data, head: DownloadResponseHead(url: url, statusCode: 200, headers: headers))
    }
}

/// The shared coder, recording the options of every decode and counting its calls.
final class RecordingCoder: ImageCoder {
    private let inner: any ImageCoder = VipsCoder.shared
    private let state = InlineLocked<(decodes: [ImageDecodeOptions], inspects: Int, encodes: Int)>(([], 0, 0))

    var decodes: [ImageDecodeOptions] { state.withLock { $0.decodes } }
    var calls: Int { state.withLock { $0.decodes.count + $0.inspects + $0.encodes } }

    func canDecode(_ data: Data) -> Bool { inner.canDecode(data) }
    func inspect(_ data: Data, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        state.withLock { $0.inspects += 1 }
        return try inner.inspect(data, limits: limits)
    }
    func decode(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image {
        state.withLock { $0.decodes.append(options) }
        return try inner.decode(data, options: options)
    }
    func decodePartial(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image? { try inner.decodePartial(data, options: options) }
    func canEncode(_ format: ImageFormat) -> Bool { inner.canEncode(format) }
    func encode(_ image: Image, options: ImageEncodeOptions) throws(ImageError) -> Data {
        state.withLock { $0.encodes += 1 }
        return try inner.encode(image, options: options)
    }
}

/// An ``ImageCache`` that records the keys read synchronously; `asynchronous`: it reads
/// and writes only asynchronously, and a write takes 50 ms.
final class RecordingCache: ImageCaching {
    let inner: ImageCache
    let asynchronous: Bool
    private let syncReads = InlineLocked<[String]>([])

    init(asynchronous: Bool = false) {
        inner = TestCaches.make()
        self.asynchronous = asynchronous
    }

    var keysReadSynchronously: [String] { syncReads.withLock { $0 } }

    func imageFromMemory(forKey key: String) -> Image? { inner.imageFromMemory(forKey: key) }
    func storeToMemory(_ image: Image, forKey key: String) { inner.storeToMemory(image, forKey: key) }
    func query(forKey key: String, cacheType: CacheType, decodeOptions: ImageDecodeOptions) async -> CacheQueryResult? {
        await inner.query(forKey: key, cacheType: cacheType, decodeOptions: decodeOptions)
    }
    func entry(forKey key: String) async -> DiskCacheEntry? { await inner.entry(forKey: key) }
    func entrySync(forKey key: String) -> DiskCacheEntry? {
        guard !asynchronous else { return nil }
        syncReads.withLock { $0.append(key) }
        return inner.entrySync(forKey: key)
    }
    var answersSynchronously: Bool { !asynchronous }
    func storeDataSync(_ data: Data, forKey key: String, metadata: CacheMetadata) throws(ImageError) -> Bool {
        guard !asynchronous else { return false }
        return try inner.storeDataSync(data, forKey: key, metadata: metadata)
    }
    func store(_ image: Image?, data: Data?, forKey key: String, metadata: CacheMetadata, cacheType: CacheType) async throws(ImageError) {
        if asynchronous, cacheType.includesDisk { try? await Task.sleep(for: .milliseconds(50)) }
        try await inner.store(image, data: data, forKey: key, metadata: metadata, cacheType: cacheType)
    }
    func remove(forKey key: String, cacheType: CacheType) async { await inner.remove(forKey: key, cacheType: cacheType) }
    func clear(_ cacheType: CacheType) async { await inner.clear(cacheType) }
    func contains(forKey key: String) async -> CacheType { await inner.contains(forKey: key) }
    func variantFromMemory(forKey key: String) -> EncodedVariant? { inner.variantFromMemory(forKey: key) }
    func storeVariantToMemory(_ variant: EncodedVariant, forKey key: String) { inner.storeVariantToMemory(variant, forKey: key) }

    /// Whether the disk tier holds `key`.
    func onDisk(_ key: String) -> Bool { inner.diskCache?.containsSync(forKey: key) == true }

    func removeDirectory() { try? FileManager.default.removeItem(atPath: inner.config.rootDirectory) }
}

/// A manager over in-memory parts that record what each request asks of them.
final class RequestFieldHarness: Sendable {
    static let still: Data = try! TestImages.encode(try! TestImages.quadrants(width: 64, height: 48), as: .jpeg)
    static let animated: Data = try! TestImages.encode(try! ImageCacheParityTests.animation(), as: .gif)

    let loader = RecordingLoader()
    let coder = RecordingCoder()
    let cache: RecordingCache
    let manager: ImageManager
    let executor = CountingExecutor()

    init(asynchronousCache: Bool = false) {
        cache = RecordingCache(asynchronous: asynchronousCache)
        manager = ImageManager(cache: cache, loader: loader, coder: coder)
        loader.serve("/still.jpg", Self.still)
        loader.serve("/animated.gif", Self.animated)
    }

    func url(_ name: String) -> URL { URL(string: "http://fields.test/" + name)! }

    /// A request for `name` with `path`'s output.
    func request(_ path: RequestPath, source name: String) -> ImageRequest {
        ImageRequest(url: url(name), output: path.output)
    }

    /// Loads `request` through the call for its output.
    func load(_ request: ImageRequest) async -> Result<RequestOutcome, ImageError> {
        do throws(ImageError) {
            if request.output.isImage { return .success(.image(try await manager.loadImage(request))) }
            return .success(.variant(try await manager.loadVariant(request)))
        } catch {
            return .failure(error)
        }
    }

    /// Whether the result of `request` is cached in `cache` (memory or disk).
    func isCached(_ request: ImageRequest, in cache: RecordingCache? = nil) async -> Bool {
        let cache = cache ?? self.cache
        guard let key = manager.cacheKey(for: request) else { return false }
        return await cache.contains(forKey: key) != .none
    }

    deinit { cache.removeDirectory() }
}

/// A transformer that counts its calls and fills 10 × 10.
final class CountingFillTransformer: ImageTransformer {
    private let inner = ResizeTransformer(size: PixelSize(width: 10, height: 10), mode: .fill)
    private let count = InlineLocked(0)
    var calls: Int { count.withLock { $0 } }
    var key: String { inner.key }
    func transform(_ image: Image) throws(ImageError) -> Image {
        count.withLock { $0 += 1 }
        return try inner.transform(image)
    }
}

/// A callback executor that runs each callback at once on a thread of its own and counts
/// them.
final class CountingExecutor: Sendable {
    private let count = InlineLocked(0)
    private let queue = DispatchQueue(label: "CountingExecutor")

    var runs: Int { count.withLock { $0 } }

    var executor: ImageCallbackExecutor {
        ImageCallbackExecutor { [self] work in
            count.withLock { $0 += 1 }
            queue.async(execute: work)
        }
    }
}
