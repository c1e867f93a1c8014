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

/// An ``ImageCache`` over a disk tier that records the keys read in the task that loads
/// (on the caller's thread: WebImage's own threads run outside any task); `slowWrites`:
/// each disk write takes 50 ms.
final class RecordingCache: ImageCaching {
    /// Set for the loads a test makes, so that a read on the caller's thread can be told
    /// from one on WebImage's threads.
    @TaskLocal static var onCaller = false

    let inner: ImageCache
    private let disk: RecordingDiskTier

    init(slowWrites: Bool = false) {
        let base = TestCaches.make()
        disk = RecordingDiskTier(inner: base.diskTier, slowWrites: slowWrites)
        inner = ImageCache(config: base.config, diskTier: disk)
    }

    var memoryTier: any ImageMemoryCaching { inner.memoryTier }
    var diskTier: any ImageDiskCaching { disk }
    var variantMemory: MemoryCache<String, EncodedVariant>? { inner.variantMemory }
    func imageFromMemory(forKey key: String) -> Image? { inner.imageFromMemory(forKey: key) }
    func storeToMemory(_ image: Image, forKey key: String) { inner.storeToMemory(image, forKey: key) }

    var keysReadSynchronously: [String] { disk.keysReadOnCaller }

    /// Whether the disk tier holds `key`.
    func onDisk(_ key: String) -> Bool { disk.containsSync(forKey: key) }

    func removeDirectory() { try? FileManager.default.removeItem(atPath: inner.config.rootDirectory) }
}

/// A disk tier that records the keys read in a task with ``RecordingCache/onCaller`` set,
/// and may make every write slow.
final class RecordingDiskTier: ImageDiskCaching {
    let inner: any ImageDiskCaching
    let slowWrites: Bool
    private let reads = InlineLocked<[String]>([])

    init(inner: any ImageDiskCaching, slowWrites: Bool) {
        self.inner = inner
        self.slowWrites = slowWrites
    }

    var keysReadOnCaller: [String] { reads.withLock { $0 } }

    func entrySync(forKey key: String) -> DiskCacheEntry? {
        if RecordingCache.onCaller { reads.withLock { $0.append(key) } }
        return inner.entrySync(forKey: key)
    }

    func storeSync(_ data: Data, forKey key: String, metadata: CacheMetadata) throws(ImageError) {
        if slowWrites { Thread.sleep(forTimeInterval: 0.05) }
        try inner.storeSync(data, forKey: key, metadata: metadata)
    }

    func containsSync(forKey key: String) -> Bool { inner.containsSync(forKey: key) }
    func removeSync(forKey key: String) { inner.removeSync(forKey: key) }
    func removeAllSync() { inner.removeAllSync() }
    func totalSizeSync() -> Int { inner.totalSizeSync() }
    func countSync() -> Int { inner.countSync() }
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

    init(slowCacheWrites: Bool = false) {
        cache = RecordingCache(slowWrites: slowCacheWrites)
        manager = ImageManager(cache: cache, loader: loader, coder: coder)
        loader.serve("/still.jpg", Self.still)
        loader.serve("/animated.gif", Self.animated)
    }

    func url(_ name: String) -> URL { URL(string: "http://fields.test/" + name)! }

    /// A request for `name` with `path`'s output.
    func request(_ path: RequestPath, source name: String) -> ImageRequest {
        ImageRequest(url: url(name), output: path.output)
    }

    /// Loads `request` through the call for its output, with ``RecordingCache/onCaller`` set.
    func load(_ request: ImageRequest) async -> Result<RequestOutcome, ImageError> {
        await RecordingCache.$onCaller.withValue(true) { await loadOnCaller(request) }
    }

    private func loadOnCaller(_ request: ImageRequest) async -> Result<RequestOutcome, ImageError> {
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
