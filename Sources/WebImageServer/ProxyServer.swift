import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Tracing
import WebImage

/// The image proxy: a Hummingbird application on the WebImage pipeline, configured by a
/// ``ServerConfig``.
///
///     let server = try ProxyServer(config: config, logger: logger)
///     try await server.run()   // until SIGTERM or SIGINT; in-flight requests finish first
public final class ProxyServer: Sendable {
    /// The configuration, validated.
    public let config: ServerConfig
    let logger: Logger
    let metrics: ServerMetrics
    /// Whether requests are traced (a tracer is bootstrapped in `InstrumentationSystem`).
    let tracesRequests: Bool
    /// The client connections open per address, against ``ServerConfig/Listen/maxClientsPerAddress``.
    let clientConnections: ClientConnections
    let downloader: ImageDownloader
    /// The downloader of `s3://` and `gs://` sources' requests, which reach the S3 and GCS
    /// endpoints the settings name (and GCS's token endpoint) on any address; `nil` when
    /// both are off.
    let objectStoreDownloader: ImageDownloader?
    /// The S3 settings of `s3://` sources; `nil` when they are off.
    let s3Configuration: S3Configuration?
    let manager: ImageManager
    let pipeline: ProxyPipeline

    /// Creates the server; nothing listens until ``run(services:onRunning:)``.
    /// - Parameters:
    ///   - config: the settings; validated here.
    ///   - logger: where the server logs.
    ///   - telemetry: what the process set up with ``ProxyTelemetry/bootstrap(_:logger:)``:
    ///     `/metrics` then serves the process's registry (Hummingbird's request metrics
    ///     with the proxy's), and requests are traced when it exports traces. Without it
    ///     the server keeps its metrics in a registry of its own and traces nothing.
    /// - Throws: ``ServerConfigError`` naming the first setting that cannot be used.
    public convenience init(
        config: ServerConfig, logger: Logger = Logger(label: "webimage.serve"), telemetry: ProxyTelemetry? = nil
    ) throws(ServerConfigError) {
        // Lookups end within the download timeout, whatever the name servers do.
        let resolver = HostResolver(timeout: config.sources.downloadTimeout)
        try self.init(
            config: config, logger: logger, telemetry: telemetry, resolve: { host throws(ImageError) in try await resolver.resolve(host) }
        )
    }

    /// Creates the server with a resolver of its own (tests give fixed DNS answers).
    init(
        config: ServerConfig,
        logger: Logger,
        telemetry: ProxyTelemetry? = nil,
        resolve: @escaping @Sendable (String) async throws(ImageError) -> [IPAddress]
    ) throws(ServerConfigError) {
        let parts = try config.makeParts()
        self.config = config
        self.logger = logger
        let namespace = config.operations.prometheusNamespace
        metrics = telemetry.map { ServerMetrics(registry: $0.registry, factory: $0.metricsFactory, namespace: namespace) }
            ?? ServerMetrics(namespace: namespace)
        tracesRequests = telemetry?.tracesRequests ?? false
        clientConnections = config.listen.clientConnections()
        let localFiles = parts.localFiles
        let sourceGuard = SourceGuard(sources: config.sources, localFiles: localFiles, resolve: resolve)
        var downloaderConfig = parts.downloaderConfig
        // A source's redirects stay under the allowed sources.
        downloaderConfig.redirectGuard = { target, original throws(ImageError) in try sourceGuard.checkRedirect(to: target, from: original) }
        // Every hop, redirects included, connects to the address the guard checked; the guard
        // approves each proxy's address too (unless trusted) and every source behind it.
        downloaderConfig.hopAddress = { url in try await sourceGuard.address(for: url) }
        downloader = ImageDownloader(config: downloaderConfig)
        Self.countRetries(of: downloader, in: metrics)

        let originals = config.caching.cacheConfig(namespace: "proxy-originals")
        var variants = config.caching.cacheConfig(namespace: "proxy-variants")
        variants.maxVariantMemoryCost = max(1, config.caching.cacheMaxMemory)
        let tiers = config.caching.tiers
        // Without disk, no directory is made and nothing is read from one a disk run left.
        let (originalDisk, variantDisk) = tiers.usesDisk ? (DiskCache(config: originals), DiskCache(config: variants)) : (nil, nil)
        let originalCache = ImageCache(config: originals, diskTier: originalDisk ?? NoDiskCache())
        let variantCache = ImageCache(config: variants, diskTier: variantDisk ?? NoDiskCache())
        let warnings = CacheWriteWarnings(logger: logger, metrics: metrics)
        if let originalDisk, let variantDisk {
            warnings.watch(originalDisk, name: "originals")
            warnings.watch(variantDisk, name: "variants")
        }
        // `local://`, `s3://` and `gs://` sources load through the same manager: cached and
        // coalesced like downloads. S3 and GCS requests (GCS's token requests too) go through
        // the downloader: its limits and the guard apply.
        var loaders: [any ImageLoader] = []
        if let localFiles { loaders.append(localFiles) }
        s3Configuration = try config.sources.s3Configuration(profile: config.profile)
        // The object stores' endpoints are the settings' own: trusted on whatever address
        // they have, through a downloader of their own. Their redirects elsewhere, and every
        // http(s) source, are checked as always.
        var trusted: [TrustedEndpoint] = []
        if let url = try? s3Configuration?.endpointURL(), let endpoint = TrustedEndpoint(url) { trusted.append(endpoint) }
        if let gcs = parts.gcs {
            if let endpoint = (try? gcs.serverURL()).flatMap(TrustedEndpoint.init) { trusted.append(endpoint) }
            if case .serviceAccount(let key) = gcs.credentials, let endpoint = TrustedEndpoint(key.tokenURI) { trusted.append(endpoint) }
        }
        if s3Configuration != nil || parts.gcs != nil {
            var storeConfig = downloaderConfig
            storeConfig.hopAddress = { [trusted] url in try await sourceGuard.address(for: url, trusting: trusted) }
            let storeDownloader = ImageDownloader(config: storeConfig)
            Self.countRetries(of: storeDownloader, in: metrics)
            objectStoreDownloader = storeDownloader
            if let s3Configuration { loaders.append(S3ImageLoader(configuration: s3Configuration, downloader: storeDownloader)) }
            if let gcs = parts.gcs { loaders.append(GCSImageLoader(configuration: gcs, downloader: storeDownloader)) }
        } else {
            objectStoreDownloader = nil
        }
        // The fallback image is a source of the manager's like any other, so its variants
        // are made and cached like theirs; it is held in memory under a URL of its own.
        fallbackImage = ConfiguredImage.configured(.fallback, in: config)
        if fallbackImage != nil { loaders.append(fallbackLoader) }
        let loader: any ImageLoader = loaders.isEmpty ? downloader : ImageLoaders(loaders + [downloader])
        manager = ImageManager(
            cache: variantCache, loader: loader,
            failedURLs: FailedURLs(ttl: .seconds(60)), cachePolicy: tiers.policy,
            variantWorkLimiter: config.limits.workLimiter(),
            maxEncodesPerOutput: config.limits.maxEncodes
        )
        pipeline = ProxyPipeline(
            parser: parts.parser, sourceGuard: sourceGuard, negotiation: FormatNegotiation(encoding: config.encoding),
            manager: manager, metrics: metrics,
            imgproxyMetrics: config.profile == .imgproxy ? ImgproxyMetrics(namespace: namespace, limiter: manager.variantWorkLimiter) : nil,
            settings: config.encoding,
            defaults: ProxyPipeline.RequestDefaults(
                limits: config.limits.imageLimits, originals: ImageRequest.OriginalCaching(cache: originalCache)
            ),
            fallback: fallbackImage.map { _ in
                ProxyPipeline.Fallback(url: Self.fallbackURL, statusCode: config.sources.fallbackImageHTTPCode, ttl: config.sources.fallbackImageTTL)
            }
        )
        watermarkSource = ConfiguredImage.configured(.watermark, in: config)
        if let watermarkSource, watermarkSource.isLocal {
            let data = try watermarkSource.localBytes()
            pipeline.setWatermark(try ProxyWatermark.decoded(from: data, baseOpacity: config.encoding.watermarkOpacity, coder: VipsCoder.shared))
        }
        if let fallbackImage, fallbackImage.isLocal {
            try setFallbackImage(fallbackImage.localBytes())
        }
    }

    /// Where the watermark image comes from; a URL is downloaded before the server listens.
    let watermarkSource: ConfiguredImage?
    /// Where the fallback image comes from; a URL is downloaded before the server listens.
    let fallbackImage: ConfiguredImage?
    /// Holds the fallback image's bytes for the manager.
    let fallbackLoader = StaticImageLoader(scheme: "webimage-fallback")
    /// The URL the fallback image is loaded from.
    static let fallbackURL = URL(string: "webimage-fallback:///image")!

    /// Counts the retries of `downloader` in `metrics` when its policy retries at all:
    /// without retries it gets no observer, and its downloads build no events.
    private static func countRetries(of downloader: ImageDownloader, in metrics: ServerMetrics) {
        guard downloader.config.retryPolicy.maxRetries > 0 else { return }
        downloader.events.observe { event in
            if case .retrying = event { metrics.sourceRetried() }
        }
    }

    /// Downloads the watermark and fallback images when they come from URLs (before the
    /// application listens).
    private func loadRemoteImages() async throws(ServerConfigError) {
        if let watermarkSource, !watermarkSource.isLocal {
            let data = try await watermarkSource.bytes(downloader: downloader)
            pipeline.setWatermark(try ProxyWatermark.decoded(from: data, baseOpacity: config.encoding.watermarkOpacity, coder: VipsCoder.shared))
        }
        if let fallbackImage, !fallbackImage.isLocal {
            try setFallbackImage(await fallbackImage.bytes(downloader: downloader))
        }
    }

    /// Checks that `data` is an image and holds it as the fallback image.
    private func setFallbackImage(_ data: Data) throws(ServerConfigError) {
        do {
            _ = try VipsCoder.shared.inspect(data)
        } catch {
            throw ServerConfigError("the fallback image is not a usable image: \(error) (\(ConfiguredImage.Purpose.fallback.settings))")
        }
        fallbackLoader.setData(data, for: Self.fallbackURL)
    }

    /// The Hummingbird application answering the proxy's paths, `/health` and `/metrics`
    /// (unless ``ServerConfig/Operations/prometheusBind`` gives `/metrics` a listener of its
    /// own, which under imgproxy's profile is the only place it is served, as imgproxy serves it). Before it listens, it downloads the watermark and fallback images that come from
    /// URLs; once it has stopped, it releases the source connections.
    ///
    /// ``run(services:onRunning:)`` runs it. Tests can run it in process with
    /// HummingbirdTesting, with no socket:
    ///
    ///     try await server.application().test(.router) { client in
    ///         let response = try await client.execute(uri: "/health", method: .get)
    ///     }
    /// - Parameter onRunning: called with the port once the server listens.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        makeApplication(responder: makeResponder(), onRunning: onRunning)
    }

    /// The Hummingbird applications: the proxy's (`onRunning` gets the port it listens on),
    /// and the one serving `/metrics` alone when ``ServerConfig/Operations/prometheusBind``
    /// names a listener of its own.
    func makeApplications(onRunning: @escaping @Sendable (Int) async -> Void) -> [any Service] {
        let responder = makeResponder()
        var applications: [any Service] = [makeApplication(responder: responder, onRunning: onRunning)]
        if let address = config.operations.prometheusListenAddress {
            let router = Router(context: BasicRequestContext.self, options: ProxyRoutes.headRouterOptions)
            router.get("/metrics") { _, _ in responder.metricsPage() }
            applications.append(Application(
                router: router,
                configuration: ApplicationConfiguration(address: .hostname(address.host, port: address.port), serverName: WebImageServer.serverHeader),
                logger: logger
            ))
        }
        return applications
    }

    /// What answers the proxy's paths, `/health` and `/metrics`.
    private func makeResponder() -> ProxyResponder {
        ProxyResponder(pipeline: pipeline, metrics: metrics, config: config, tracesRequests: tracesRequests)
    }

    /// The proxy's application, answering with `responder`.
    private func makeApplication(responder: ProxyResponder, onRunning: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        let router = Router(context: ProxyRequestContext.self, options: ProxyRoutes.headRouterOptions)
        // Outermost: the request lines and every answer, errors too, carry the request's ID.
        router.add(middleware: RequestIDMiddleware())
        // A middleware that would do nothing on every request is not installed: without a
        // tracer, no spans; above `info`, no request lines.
        if tracesRequests { router.add(middleware: TracingMiddleware()) }
        if logger.logLevel <= .info { router.add(middleware: LogRequestsMiddleware(.info)) }
        let listen = config.listen
        if let origin = listen.allowOrigin {
            router.add(middleware: CORSMiddleware(origin: origin, pathPrefix: listen.pathPrefix ?? "", healthCheckPath: listen.healthCheckPath))
        }
        router.add(middleware: AllowedMethodsMiddleware())
        ProxyRoutes(
            responder: responder, playground: listen.playground ? PlaygroundPage(config: config) : nil, healthCheckPath: listen.healthCheckPath,
            pathPrefix: listen.pathPrefix ?? "", servesMetrics: config.operations.prometheusBind == nil && config.profile != .imgproxy,
            secret: listen.secret, requestTimeout: config.limits.requestTimeout, headsWithoutWork: config.profile == .imgproxy,
            imgproxyMetrics: pipeline.imgproxyMetrics
        ).add(to: router)
        // Hummingbird sets a request ID on a copy of this logger per request: defer its rendering.
        let handler = logger.handler
        let logger = Logger(label: logger.label) { _ in DeferredMetadataLogHandler(wrapping: handler) }
        var application = Application(
            router: router,
            server: .clientLimitedHTTP1(connections: clientConnections, limits: listen.clientLimits, metrics: metrics),
            // At the cap the listening socket is not read: new clients wait in its backlog.
            configuration: ApplicationConfiguration(
                address: .hostname(listen.host, port: listen.port), serverName: WebImageServer.serverHeader,
                availableConnectionsDelegate: MaximumAvailableConnections(listen.maxClients)
            ),
            services: [SourceConnections(downloaders: [downloader] + (objectStoreDownloader.map { [$0] } ?? []))],
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        application.beforeServerStarts { [self] in
            try await logS3Credentials()
            try await loadRemoteImages()
        }
        return application
    }

    /// Serves until SIGTERM or SIGINT arrives (or the task is cancelled),
    /// then stops accepting connections, lets the requests in flight finish, and returns.
    /// - Parameters:
    ///   - services: services that run as long as the server and stop after it, e.g. the
    ///     exporters of ``ProxyTelemetry/services`` (which then export what they still hold).
    ///   - onRunning: called with the port once the server listens.
    public func run(services: [any Service] = [], onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        // A service group stops its services in reverse order: the application first.
        var configuration = ServiceGroupConfiguration(
            services: services + makeApplications(onRunning: onRunning),
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        // Past it, the group cancels its services: the requests in flight are cut off.
        configuration.maximumGracefulShutdownDuration = config.listen.gracefulStopTimeout
        try await ServiceGroup(configuration: configuration).run()
    }
}
