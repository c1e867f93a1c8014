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
    /// The client connections open per address, against ``ServerConfig/maxClientsPerAddress``.
    let clientConnections: ClientConnections
    let downloader: ImageDownloader
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
        let resolver = HostResolver(timeout: config.downloadTimeout)
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
        try config.validate()
        self.config = config
        self.logger = logger
        metrics = telemetry.map { ServerMetrics(registry: $0.registry, factory: $0.metricsFactory, namespace: config.prometheusNamespace) }
            ?? ServerMetrics(namespace: config.prometheusNamespace)
        tracesRequests = telemetry?.tracesRequests ?? false
        clientConnections = ClientConnections(perAddressLimit: config.maxClientsPerAddress > 0 ? config.maxClientsPerAddress : nil)
        let localFiles = try config.localFiles()
        let sourceGuard = SourceGuard(
            allowedPrefixes: config.allowedSources, allowLoopback: config.allowLoopback,
            allowPrivate: config.allowPrivate, allowLinkLocal: config.allowLinkLocal, localFiles: localFiles,
            allowsS3: config.useS3, allowedBuckets: config.s3AllowedBuckets, deniedBuckets: config.s3DeniedBuckets,
            resolve: resolve
        )
        var downloaderConfig = DownloaderConfig()
        downloaderConfig.maxBodySize = config.maxSourceBytes
        downloaderConfig.totalTimeout = config.downloadTimeout
        downloaderConfig.idleTimeout = config.downloadTimeout
        downloaderConfig.connectTimeout = min(config.downloadTimeout, .seconds(10))
        downloaderConfig.keepAliveTimeout = config.sourceKeepAliveTimeout
        downloaderConfig.maxConcurrentDownloads = config.maxDownloads
        downloaderConfig.maxConcurrentDownloadsPerHost = config.maxDownloadsPerHost
        downloaderConfig.maxRedirects = config.maxRedirects
        downloaderConfig.headers.replaceOrAdd(name: "User-Agent", value: config.userAgent ?? "\(WebImageServer.serverHeader) (image proxy)")
        // A source's redirects stay under the allowed sources.
        downloaderConfig.redirectGuard = { target, original throws(ImageError) in try sourceGuard.checkRedirect(to: target, from: original) }
        // Every hop, redirects included, connects to the address the guard checked.
        downloaderConfig.hopAddress = { url in try await sourceGuard.address(for: url) }
        // The guard approves each proxy's address too (unless trusted) and every source behind it.
        downloaderConfig.proxy = try config.sourceProxy()
        downloaderConfig.tls = try config.sourceTLS()
        downloader = ImageDownloader(config: downloaderConfig)

        // Originals and variants each get half the disk and no decoded images in memory:
        // encoded variants are what is served from memory.
        func halfOfTheCache(_ namespace: String) -> CacheConfig {
            var cache = CacheConfig()
            cache.rootDirectory = config.cacheDirectory
            cache.namespace = namespace
            cache.maxDiskSize = config.cacheMaxDiskSize / 2
            cache.maxDiskAge = config.cacheMaxAge
            cache.shouldCacheImagesInMemory = false
            return cache
        }
        let originals = halfOfTheCache("proxy-originals")
        var variants = halfOfTheCache("proxy-variants")
        variants.maxVariantMemoryCost = max(1, config.cacheMaxMemory)
        var context = ImageContext()
        context.limits = ImageLimits(maxPixels: config.maxSourceResolution, maxFrames: config.maxAnimationFrames)
        context.limits.maxFramePixels = config.maxAnimationFrameResolution
        let (originalDisk, variantDisk) = (DiskCache(config: originals), DiskCache(config: variants))
        let originalCache = ImageCache(config: originals, diskTier: originalDisk)
        let variantCache = ImageCache(config: variants, diskTier: variantDisk)
        let warnings = CacheWriteWarnings(logger: logger, metrics: metrics)
        warnings.watch(originalDisk, name: "originals")
        warnings.watch(variantDisk, name: "variants")
        context.originalCache = originalCache
        // `local://` and `s3://` sources load through the same manager: cached and coalesced
        // like downloads. S3 requests go through the downloader: its limits and the guard apply.
        var loaders: [any ImageLoader] = []
        if let localFiles { loaders.append(localFiles) }
        if let s3 = config.s3Configuration() { loaders.append(S3ImageLoader(configuration: s3, downloader: downloader)) }
        // The fallback image is a source of the manager's like any other, so its variants
        // are made and cached like theirs; it is held in memory under a URL of its own.
        fallbackImage = ConfiguredImage.configured(.fallback, in: config)
        if fallbackImage != nil { loaders.append(fallbackLoader) }
        let loader: any ImageLoader = loaders.isEmpty ? downloader : ImageLoaders(loaders + [downloader])
        manager = ImageManager(
            cache: variantCache, loader: loader,
            failedURLs: FailedURLs(ttl: .seconds(60)), defaultContext: context,
            variantWorkLimiter: WorkLimiter(
                workers: config.workers, queueSize: config.queueSize, memoryBudget: MemoryBudget(bytes: config.memoryBudget)
            ),
            maxEncodesPerOutput: config.maxEncodes
        )
        let negotiation = FormatNegotiation(settings: config)
        let parser = ProxyURLParser(
            keys: try config.signingKeys(), signatureSize: config.signatureSize, presets: config.presets,
            maxDimension: config.maxResultDimension, allowSecurityOptions: config.allowSecurityOptions,
            trustedSignatures: Set(config.trustedSignatures), sourceCipher: try config.sourceCipher(), onlyPresets: config.onlyPresets,
            defaultOptions: config.processingDefaults, allowedOptions: Set(config.allowedProcessingOptions),
            argumentsSeparator: config.argumentsSeparator, sourceRewrite: config.sourceRewrite,
            base64URLIncludesFilename: config.base64URLIncludesFilename
        )
        pipeline = ProxyPipeline(
            parser: parser, sourceGuard: sourceGuard, negotiation: negotiation, manager: manager, metrics: metrics, settings: config,
            fallback: fallbackImage.map { _ in
                ProxyPipeline.Fallback(url: Self.fallbackURL, statusCode: config.fallbackImageHTTPCode, ttl: config.fallbackImageTTL)
            }
        )
        watermarkSource = ConfiguredImage.configured(.watermark, in: config)
        if let watermarkSource, watermarkSource.isLocal {
            let data = try watermarkSource.localBytes()
            pipeline.setWatermark(try ProxyWatermark.decoded(from: data, baseOpacity: config.watermarkOpacity, coder: VipsCoder.shared))
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

    /// Downloads the watermark and fallback images when they come from URLs.
    func loadRemoteImages() async throws(ServerConfigError) {
        if let watermarkSource, !watermarkSource.isLocal {
            let data = try await watermarkSource.bytes(downloader: downloader)
            pipeline.setWatermark(try ProxyWatermark.decoded(from: data, baseOpacity: config.watermarkOpacity, coder: VipsCoder.shared))
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

    /// The Hummingbird applications: the proxy's (`onRunning` gets the port it listens on),
    /// and the one serving `/metrics` alone when ``ServerConfig/prometheusBind`` names a
    /// listener of its own.
    func makeApplications(onRunning: @escaping @Sendable (Int) async -> Void) -> [any Service] {
        let responder = makeResponder()
        var applications: [any Service] = [makeApplication(responder: responder, onRunning: onRunning)]
        if let address = config.prometheusListenAddress {
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
        ProxyResponder(pipeline: pipeline, metrics: metrics, settings: config, tracesRequests: tracesRequests)
    }

    /// The proxy's application, answering with `responder`.
    private func makeApplication(responder: ProxyResponder, onRunning: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self, options: ProxyRoutes.headRouterOptions)
        // A middleware that would do nothing on every request is not installed: without a
        // tracer, no spans; above `info`, no request lines.
        if tracesRequests { router.add(middleware: TracingMiddleware()) }
        router.add(middleware: RequestMetricsMiddleware())
        if logger.logLevel <= .info { router.add(middleware: LogRequestsMiddleware(.info)) }
        if let origin = config.allowOrigin {
            router.add(middleware: CORSMiddleware(origin: origin, pathPrefix: config.pathPrefix ?? "", healthCheckPath: config.healthCheckPath))
        }
        router.add(middleware: AllowedMethodsMiddleware())
        ProxyRoutes(
            responder: responder, playground: config.playground ? PlaygroundPage(config: config) : nil, healthCheckPath: config.healthCheckPath,
            pathPrefix: config.pathPrefix ?? "", servesMetrics: config.prometheusBind == nil
        ).add(to: router)
        // Hummingbird sets a request ID on a copy of this logger per request: defer its rendering.
        let handler = logger.handler
        let logger = Logger(label: logger.label) { _ in DeferredMetadataLogHandler(wrapping: handler) }
        return Application(
            router: router,
            server: .clientLimitedHTTP1(
                connections: clientConnections,
                limits: ClientLimits(
                    readTimeout: config.readRequestTimeout, writeTimeout: config.writeResponseTimeout,
                    keepAliveTimeout: config.keepAliveTimeout > .zero ? config.keepAliveTimeout : nil,
                    sendBufferSize: config.clientSendBufferSize > 0 ? config.clientSendBufferSize : nil
                ),
                metrics: metrics
            ),
            // At the cap the listening socket is not read: new clients wait in its backlog.
            configuration: ApplicationConfiguration(
                address: .hostname(config.host, port: config.port), serverName: WebImageServer.serverHeader,
                availableConnectionsDelegate: MaximumAvailableConnections(config.maxClients)
            ),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger
        )
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
        configuration.maximumGracefulShutdownDuration = config.gracefulStopTimeout
        let group = ServiceGroup(configuration: configuration)
        try await run(group)
    }

    /// Loads the watermark and fallback images from their URLs, runs `group` (which holds this server's
    /// application), then releases the downloader.
    func run(_ group: ServiceGroup) async throws {
        do {
            try await loadRemoteImages()
            try await group.run()
        } catch {
            await downloader.shutdown()
            throw error
        }
        await downloader.shutdown()
    }
}
