import Foundation
import WebImage

/// Everything between a proxy path and the bytes served: parse and check the URL, guard
/// the source, look the variant up, and on a miss make it — once for all identical
/// requests running at once (single flight), in a worker slot (``WorkLimiter``).
///
/// Originals come through the ``ImageManager`` (its disk cache, downloader coalescing and
/// limits); variants are cached encoded in the ``VariantStore``. Failures are never cached.
final class ProxyPipeline: Sendable {
    /// What a successful request produced.
    struct Outcome: Sendable {
        var variant: EncodedVariant
        /// `memory`, `disk` (variant cache hits) or `miss`.
        var cache: String
        /// Whether the format came from `Accept` or could have (→ `Vary: Accept`).
        var variesWithAccept: Bool
        /// The file name offered in `Content-Disposition`.
        var fileName: String
    }

    let parser: ProxyURLParser
    let sourceGuard: SourceGuard
    let negotiation: FormatNegotiation
    let manager: ImageManager
    let store: VariantStore
    let limiter: WorkLimiter
    let renderer: VariantRenderer
    let metrics: ServerMetrics
    private let flights = SingleFlight<Result<EncodedVariant, ProxyFailure>>()
    /// Paths already resolved, so that a repeated path skips parsing and checking.
    private let resolvedPaths = ResolvedPaths()

    init(
        parser: ProxyURLParser, sourceGuard: SourceGuard, negotiation: FormatNegotiation, manager: ImageManager,
        store: VariantStore, limiter: WorkLimiter, renderer: VariantRenderer, metrics: ServerMetrics
    ) {
        self.parser = parser
        self.sourceGuard = sourceGuard
        self.negotiation = negotiation
        self.manager = manager
        self.store = store
        self.limiter = limiter
        self.renderer = renderer
        self.metrics = metrics
    }

    /// A request parsed and checked, its variant named: what a lookup needs.
    struct Resolved: Sendable {
        /// The parsed URL.
        var request: ProxyRequest
        /// The output format as far as it is known before the source is read.
        var choice: FormatNegotiation.Choice
        /// The variant's key in the ``VariantStore`` (source, options, format).
        var key: String
        /// Whether the response depends on `Accept` (→ `Vary: Accept`).
        var variesWithAccept: Bool
        /// The file name offered in `Content-Disposition`.
        var fileName: String
    }

    /// Parses and checks `path` (still percent-encoded, without its query) and names the
    /// variant it asks for. Synchronous and cheap: no I/O.
    func resolve(path: String, accept: String?) -> Result<Resolved, ProxyFailure> {
        let entry: ResolvedPaths.Entry
        if let known = resolvedPaths.entry(forPath: path) {
            entry = known
        } else {
            let request: ProxyRequest
            do {
                request = try parser.parse(path: path)
            } catch {
                return .failure(ProxyFailure(status: error.status, message: error.message))
            }
            do {
                try sourceGuard.checkPolicy(request.source)
            } catch {
                return .failure(ProxyFailure(status: error.status, message: error.message))
            }
            entry = ResolvedPaths.Entry(
                request: request, keyPrefix: request.source.absoluteString + "|" + request.options.variantKey + "|",
                fileName: Self.fileName(for: request.source)
            )
            resolvedPaths.remember(entry, forPath: path)
        }
        let choice = negotiation.choice(requested: entry.request.options.format, accept: accept)
        let varies: Bool
        if case .explicit = choice { varies = false } else { varies = negotiation.variesWithAccept }
        return .success(Resolved(
            request: entry.request, choice: choice, key: entry.keyPrefix + choice.keyComponent,
            variesWithAccept: varies, fileName: entry.fileName
        ))
    }

    /// The variant from the memory cache, counted as a `memory` hit; `nil` (and nothing
    /// counted) when it is not there. Synchronous: a hit needs no task, timer or I/O.
    func memoryHit(_ resolved: Resolved) -> Outcome? {
        guard let variant = store.memoryLookup(resolved.key) else { return nil }
        metrics.cacheHit(VariantStore.Source.memory.rawValue)
        return Outcome(variant: variant, cache: VariantStore.Source.memory.rawValue, variesWithAccept: resolved.variesWithAccept, fileName: resolved.fileName)
    }

    /// Serves `resolved` from the variant caches (memory, then disk), or makes it.
    func serve(_ resolved: Resolved) async -> Result<Outcome, ProxyFailure> {
        let key = resolved.key
        let varies = resolved.variesWithAccept
        let fileName = resolved.fileName
        if let (variant, source) = await store.lookup(key) {
            metrics.cacheHit(source.rawValue)
            return .success(Outcome(variant: variant, cache: source.rawValue, variesWithAccept: varies, fileName: fileName))
        }
        metrics.cacheMiss()
        let request = resolved.request
        let choice = resolved.choice
        let result: Result<EncodedVariant, ProxyFailure>
        do throws(ImageError) {
            result = try await flights.run(key: key) { [self] in
                await make(key: key, source: request.source, options: request.options, choice: choice)
            }
        } catch {
            result = .failure(ProxyFailure(error))
        }
        return result.map { Outcome(variant: $0, cache: "miss", variesWithAccept: varies, fileName: fileName) }
    }

    /// Makes and stores one variant in a worker slot.
    private func make(
        key: String, source: URL, options: ProcessingOptions, choice: FormatNegotiation.Choice
    ) async -> Result<EncodedVariant, ProxyFailure> {
        do {
            return try await limiter.run { () async -> Result<EncodedVariant, ProxyFailure> in
                do throws(ImageError) {
                    let data = try await original(source)
                    let renderer = self.renderer
                    let variant = try await BlockingPools.run(on: BlockingPools.coding) { () throws(ImageError) -> EncodedVariant in
                        try renderer.render(data, options: options, choice: choice)
                    }
                    metrics.variantProcessed()
                    store.store(variant, forKey: key)
                    return .success(variant)
                } catch {
                    if case .badImageData = error, let originalKey = manager.cacheKey(for: source) {
                        // The header passed but the pixels did not: keep no trace of these bytes.
                        await manager.cache.remove(forKey: originalKey)
                    }
                    return .failure(ProxyFailure(error))
                }
            }
        } catch is WorkLimiter.QueueFull {
            return .failure(ProxyFailure(status: 429, message: "too many requests: every worker is busy and the queue is full; retry later"))
        } catch {
            return .failure(ProxyFailure(.cancelled))
        }
    }

    /// The source's bytes: from the originals' disk cache, else downloaded through the
    /// manager (limits checked from the header; stored on disk before this returns).
    private func original(_ url: URL) async throws(ImageError) -> Data {
        if let key = manager.cacheKey(for: url), let data = await manager.cache.diskData(forKey: key) {
            metrics.cacheHit("original")
            return data
        }
        // retryFailed: every request reports the source's real status, never a stale block.
        let result = try await manager.loadImage(from: url, options: [.avoidDecodeImage, .retryFailed, .waitStoreCache])
        guard let data = result.data else { throw .badImageData("the source of \(url.absoluteString) has no bytes") }
        metrics.sourceDownloaded(bytes: data.count)
        return data
    }

    /// The last path component of the source without its extension, reduced to safe
    /// characters (`image` when nothing is left).
    static func fileName(for source: URL) -> String {
        let base = (source.lastPathComponent as NSString).deletingPathExtension
        // ASCII letters (the only ASCII scalars that are Alphabetic), digits and `-_.`.
        let safe = String(base.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x5F, 0x2E: true
            default: false
            }
        }.prefix(100))
        return safe.isEmpty || safe == "/" ? "image" : safe
    }
}
