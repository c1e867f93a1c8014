import Foundation
import WebImage
import WebImageLocking

/// Everything between a proxy path and the bytes served: parse and check the URL, guard
/// the source, and ask the ``ImageManager`` for the encoded variant the URL names.
///
/// The manager does the rest — the variant's memory and disk caches, the source's cache,
/// the download, the decode, transform and encode, once for all identical requests running
/// at once, in a slot of its `WorkLimiter` — so this type keeps no cache and makes no image.
final class ProxyPipeline: Sendable {
    /// What a successful request produced.
    struct Outcome: Sendable {
        var variant: EncodedVariant
        /// Where the variant came from.
        var cache: CacheOutcome
        /// Whether the format came from `Accept` or could have (→ `Vary: Accept`).
        var variesWithAccept: Bool
        /// The response's `Content-Disposition`.
        var disposition: ContentDisposition
        /// What is answered: an image, details or a ThumbHash.
        var kind: ProxyResponseKind
        /// The source the URL names (the fallback image's stands in for it, when answered).
        var source: URL
        /// The error the fallback image stands in for, when it is answered in place of the
        /// source; `nil` for the source's own image.
        var replacedError: ProxyError?
    }

    /// The fallback image: answered, processed as the URL asks, in place of a source that
    /// cannot be downloaded.
    struct Fallback: Sendable {
        /// The URL the manager loads it from.
        var url: URL
        /// The status it is answered with; 0: the status of the error it stands in for.
        var statusCode: Int
        /// Its `max-age` when shorter than the TTL; `nil`: the TTL.
        var ttl: Int?
    }

    /// The variant a path asks for under one format choice, and its cache key.
    struct Variant: Sendable {
        /// The library request, built once per path and choice.
        var request: ImageRequest
        /// The manager's key for it (`nil` would mean "not cached"; the proxy sets no key filter).
        var key: String?
    }

    /// What every variant request starts from: the server's limits, and the cache its
    /// sources are looked up in and kept in.
    struct RequestDefaults: Sendable {
        /// The server's limits on sources (a URL's own replace them).
        var limits: ImageLimits
        /// Where sources are looked up and kept.
        var originals: ImageRequest.OriginalCaching
    }

    let parser: ProxyURLParser
    let sourceGuard: SourceGuard
    let negotiation: FormatNegotiation
    let manager: ImageManager
    let metrics: ServerMetrics
    /// imgproxy's series, under imgproxy's profile: the spans of each variant made go there.
    let imgproxyMetrics: ImgproxyMetrics?
    /// The server's encoding settings: the variants read theirs from them (qualities,
    /// metadata, the decode's shrink and light).
    let settings: ServerConfig.Encoding
    /// The encoder settings every variant starts from, made once from ``settings``.
    let encodeOptions: ImageEncodeOptions
    /// The fallback image, if the server has one.
    let fallback: Fallback?
    /// What every variant request starts from.
    let defaults: RequestDefaults
    /// Paths already resolved, so that a repeated path skips parsing and checking.
    private let resolvedPaths = ResolvedPaths()
    /// The server's watermark image, once loaded (before the server listens).
    private let watermarkImage = InlineLocked<ProxyWatermark?>(nil)

    /// Sets the watermark image URLs with a `watermark` option get.
    func setWatermark(_ watermark: ProxyWatermark) {
        watermarkImage.withLock { $0 = watermark }
    }

    /// The pipeline of a server with `settings`, on its parser, guard, negotiation and manager.
    init(
        parser: ProxyURLParser, sourceGuard: SourceGuard, negotiation: FormatNegotiation, manager: ImageManager,
        metrics: ServerMetrics, imgproxyMetrics: ImgproxyMetrics? = nil, settings: ServerConfig.Encoding, defaults: RequestDefaults,
        fallback: Fallback? = nil
    ) {
        self.defaults = defaults
        self.imgproxyMetrics = imgproxyMetrics
        self.settings = settings
        self.encodeOptions = settings.encodeOptions
        self.fallback = fallback
        self.parser = parser
        self.sourceGuard = sourceGuard
        self.negotiation = negotiation
        self.manager = manager
        self.metrics = metrics
        // Variants made are counted where they are made, once each, also those finished
        // after every request for them had left.
        manager.events.observe { event in
            guard case .variantMade(_, _, let sourceCacheType, let downloadedBytes) = event else { return }
            metrics.variantProcessed()
            if sourceCacheType == CacheType.none {
                metrics.sourceDownloaded(bytes: downloadedBytes)
            } else {
                metrics.cacheHit("original")
            }
        }
    }

    /// The work slots variants are made in (the manager's).
    var limiter: WorkLimiter? { manager.variantWorkLimiter }

    /// A request parsed and checked, its variant named: what a lookup needs.
    struct Resolved: Sendable {
        /// The parsed URL.
        var request: ProxyRequest
        /// The variant to serve.
        var variant: Variant
        /// Whether the response depends on `Accept` (→ `Vary: Accept`).
        var variesWithAccept: Bool
        /// The response's `Content-Disposition`.
        var disposition: ContentDisposition
        /// What is answered: an image, details or a ThumbHash.
        var kind: ProxyResponseKind
    }

    /// Parses and checks `path` (still percent-encoded, without its query) and names the
    /// variant it asks for. Synchronous and cheap: no I/O.
    /// - Parameter hints: the request's client hints, when the server reads them.
    func resolve(path: String, accept: String?, hints: ClientHints? = nil) -> Result<Resolved, ProxyError> {
        let entry: ResolvedPaths.Entry
        // The same path with other hints is another request.
        let remembered = hints.map { path + $0.cacheKeySuffix } ?? path
        if let known = resolvedPaths.entry(forPath: remembered) {
            entry = known
        } else {
            let request: ProxyRequest
            do {
                // `/info/<signature>/<options>/<source>`: signed and parsed as the path after `/info`.
                let isInfo = path.hasPrefix(ProxyResponseKind.infoPrefix)
                request = try parser.parse(path: isInfo ? String(path.dropFirst(ProxyResponseKind.infoPrefix.count - 1)) : path, hints: hints)
            } catch {
                return .failure(error)
            }
            do {
                try sourceGuard.checkPolicy(request.source)
            } catch {
                return .failure(error)
            }
            let kind = ProxyResponseKind.of(path: path, options: request.options)
            var variants: [FormatNegotiation.Choice: Variant] = [:]
            let choices = kind == .image
                ? negotiation.possibleChoices(requested: request.options.format, best: request.options.bestFormat) : [.fromSource]
            for choice in choices { variants[choice] = variant(for: request, choice: choice, kind: kind) }
            entry = ResolvedPaths.Entry(request: request, variants: variants, disposition: ContentDisposition(for: request), kind: kind)
            resolvedPaths.remember(entry, forPath: remembered)
        }
        let choice = entry.kind == .image
            ? negotiation.choice(requested: entry.request.options.format, best: entry.request.options.bestFormat, accept: accept)
            : .fromSource
        let varies: Bool
        switch choice {
        case _ where entry.kind != .image: varies = false
        case .explicit where !negotiation.enforces: varies = false
        case .best: varies = negotiation.bestVariesWithAccept
        default: varies = negotiation.variesWithAccept
        }
        let variant = entry.variants[choice] ?? self.variant(for: entry.request, choice: choice, kind: entry.kind)
        return .success(Resolved(
            request: entry.request, variant: variant, variesWithAccept: varies, disposition: entry.disposition, kind: entry.kind
        ))
    }

    /// The variant `request` asks for under `choice`, with its key.
    private func variant(for request: ProxyRequest, choice: FormatNegotiation.Choice, kind: ProxyResponseKind) -> Variant {
        let imageRequest = libraryRequest(for: request, choice: choice, kind: kind)
        return Variant(request: imageRequest, key: manager.cacheKey(for: imageRequest))
    }

    /// The library request for `request` encoded as `choice` says (or its details or
    /// ThumbHash, as `kind` says), within the server's and the URL's limits. Every request
    /// reports the source's real status, never a stale block (``ImageRequest/Options/retryFailed``).
    private func libraryRequest(for request: ProxyRequest, choice: FormatNegotiation.Choice, kind: ProxyResponseKind) -> ImageRequest {
        var library = ImageRequest(url: request.source, options: .retryFailed, caching: ImageRequest.Caching(originals: defaults.originals))
        library.limits = defaults.limits
        Self.apply(request.options.limits, to: &library)
        if kind == .info {
            library.output = .details(includeGPS: request.options.includeGPS)
            return library
        }
        var options = request.options
        // The server's bound on the result's sides, unless the URL sets its own: dpr, zoom and
        // min sizes scale the source itself, which no URL check can bound.
        if options.limits.maxResultDimension == nil { options.limits.maxResultDimension = parser.maxDimension }
        let background = options.background.map { ImageEncodeOptions.Color(red: Int($0.red), green: Int($0.green), blue: Int($0.blue)) }
        // Auto quality when the URL asks for it, or by the server's default when the URL
        // names no quality of its own.
        let auto = options.autoQuality || (settings.defaultAutoQuality && options.quality == nil && options.formatQuality.isEmpty)
        // The server's encoder settings, with what the URL sets.
        var encoder = encodeOptions
        encoder.quality = options.quality ?? settings.defaultQuality
        encoder.maxFileSize = options.maxBytes
        encoder.stripMetadata = options.stripMetadata ?? settings.stripMetadata
        encoder.backgroundColor = background ?? .white
        encoder.colorProfile = options.stripColorProfile == false ? .source : .sRGB
        encoder.keepCopyright = options.keepCopyright ?? false
        let encoding = VariantEncoding(
            format: negotiation.variantFormat(for: choice),
            autoQuality: auto ? AutoQuality(target: options.autoQualityTarget ?? settings.autoQualityTarget) : nil,
            // A URL's quality is for every format; its format_quality, then the server's, otherwise.
            formatQuality: options.quality == nil ? settings.formatQuality.merging(options.formatQuality) { _, url in url } : [:],
            options: encoder,
            svgSources: settings.svgSources(for: options)
        )
        // `raw`: the source as it is, unprocessed (its ThumbHash made from it unprocessed too).
        if options.raw {
            library.output = kind == .thumbHash ? .thumbHash : .encoded(encoding, passthrough: .always)
            return library
        }
        let watermark = options.watermark == nil ? nil : watermarkImage.withLock { $0 }
        let embeddedThumbnail = options.enforceThumbnail ?? false
        library.processing = ImageProcessing(
            thumbnailPixelSize: embeddedThumbnail ? nil : options.thumbnailPixelSize,
            transformer: ProxyTransformer(options: options, watermark: watermark, linearLight: settings.useLinearColorspace),
            preferEmbeddedThumbnail: embeddedThumbnail
        )
        library.processing.jpegShrink = settings.jpegShrinkOnLoad
        // An SVG source served unprocessed goes through svgSources, sanitised as the server says.
        let passthrough = options.passthroughFormats.subtracting([.svg])
        library.output = kind == .thumbHash ? .thumbHash : .encoded(encoding, passthrough: passthrough.isEmpty ? .never : .formats(passthrough))
        return library
    }

    /// The variant from the memory cache, counted as a `memory` hit; `nil` (and nothing
    /// counted) when it is not there. Synchronous: a hit needs no task, timer or I/O.
    func memoryHit(_ resolved: Resolved) -> Outcome? {
        guard let key = resolved.variant.key, let variant = manager.variantFromMemory(for: resolved.variant.request, key: key) else { return nil }
        metrics.cacheHit("memory")
        return Outcome(
            variant: variant, cache: .memory, variesWithAccept: resolved.variesWithAccept, disposition: resolved.disposition,
            kind: resolved.kind, source: resolved.request.source
        )
    }

    /// What ``serve(_:conditions:)`` fails with when the source answered its conditions
    /// with 304: the client's copy is current, and nothing was downloaded or made.
    static let sourceNotModified = ProxyError(status: 304, message: "not modified: the source answered the request's conditions with 304")

    /// Serves `resolved` through the manager: from its variant caches, or made.
    ///
    /// `conditions` go to the source with the download, when there is one; a source that
    /// answers them with 304 fails the call with ``sourceNotModified``.
    ///
    /// A request that is cancelled (it timed out, its client hung up) stops waiting at once,
    /// and the work it started stops with it when no other request waits for the same
    /// variant: its download is closed, its coding stops before the next encode. A variant
    /// already made is still written to the cache.
    func serve(_ resolved: Resolved, conditions: SourceConditions? = nil) async -> Result<Outcome, ProxyError> {
        let result: VariantResult
        var replacedError: ProxyError?
        do throws(ImageError) {
            var request = resolved.variant.request
            request.sourceConditions = conditions
            result = try await manager.loadVariant(request)
        } catch .cacheNotModified {
            return .failure(Self.sourceNotModified)
        } catch {
            guard let fallback, resolved.kind == .image, Self.isDownloadFailure(error) else { return .failure(ProxyError(error)) }
            var request = resolved.variant.request
            request.source = .url(fallback.url)
            // The fallback image's own failures may block it for a while.
            request.options.remove(.retryFailed)
            do throws(ImageError) {
                result = try await manager.loadVariant(request)
            } catch {
                return .failure(ProxyError(error))
            }
            replacedError = ProxyError(error)
        }
        let cache: CacheOutcome
        switch result.cacheType {
        case .memory:
            cache = .memory
            metrics.cacheHit("memory")
        case .disk, .all:
            cache = .disk
            metrics.cacheHit("disk")
        case .none:
            cache = .miss
            metrics.cacheMiss()
            if let imgproxyMetrics, let timings = result.timings {
                imgproxyMetrics.variantMade(timings, downloadedBytes: result.sourceCacheType == CacheType.none ? result.downloadedBytes : nil)
            }
        }
        return .success(Outcome(
            variant: result.variant, cache: cache, variesWithAccept: resolved.variesWithAccept, disposition: resolved.disposition,
            kind: resolved.kind, source: resolved.request.source, replacedError: replacedError
        ))
    }

    /// Whether `error` means the source's bytes could not be had (the cases the fallback
    /// image stands in for), rather than bytes that are not a usable image.
    static func isDownloadFailure(_ error: ImageError) -> Bool {
        switch error {
        case .invalidStatusCode, .network, .timedOut, .invalidResponse, .bodyTooLarge, .notFound, .accessDenied, .forbiddenSource, .blockedURL:
            true
        default:
            false
        }
    }
}
