import ArgumentParser
import Foundation
import Logging
import WebImage
import WebImageServer

/// `webimage serve`: the imgproxy-compatible image proxy.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve resized images from remote sources (imgproxy URL format).",
        discussion: """
            Every option can also be set with a WEBIMAGE_* environment variable (e.g. WEBIMAGE_PORT, \
            WEBIMAGE_KEYS, WEBIMAGE_ALLOWED_SOURCES as comma-separated lists), and imgproxy's IMGPROXY_* \
            variables are read with imgproxy's meaning (IMGPROXY_KEY, IMGPROXY_BIND, IMGPROXY_PRESETS…); \
            flags win over WEBIMAGE_*, which win over IMGPROXY_*. When any IMGPROXY_* variable is set \
            (or --imgproxy-defaults is given), every default and status code is imgproxy's; the start-up \
            log says which. IMGPROXY_* variables WebImage does not apply are listed with the reason in one \
            warning at start-up, and one it cannot run without (gs:// sources, settings from a secrets manager…) stops it. \
            SIGTERM or SIGINT stops accepting connections, lets requests in flight finish, and exits 0. \
            Traces go by OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER=otlp is set, \
            metrics as well when OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or OTEL_METRICS_EXPORTER=otlp is set. \
            The process runs glibc malloc with \(AllocatorSettings.defaultArenas) arenas unless MALLOC_ARENA_MAX is set.
            """
    )

    @Option(name: .customLong("bind"), help: "Address to listen on (default 127.0.0.1).") var bind: String?
    @Option(help: "Port to listen on, 0 for any free port (default 8080).") var port: String?
    @Option(name: .customLong("key"), help: "Hex signing key; repeat for several (paired in order with --salt).") var keys: [String] = []
    @Option(name: .customLong("salt"), help: "Hex salt for the key in the same position.") var salts: [String] = []
    @Option(help: "Bytes of the HMAC kept in signatures, 1-32 (default 32).") var signatureSize: String?
    @Option(name: .customLong("allowed-source"), help: "Allowed source prefix, e.g. https://images.example.com/ (repeatable; default: any).") var allowedSources: [String] = []
    @Flag(inversion: .prefixedNo, help: "Allow loopback sources (default off).") var allowLoopback: Bool?
    @Flag(inversion: .prefixedNo, help: "Allow private-network and CGNAT sources (default off).") var allowPrivate: Bool?
    @Flag(inversion: .prefixedNo, help: "Allow link-local sources (default off).") var allowLinkLocal: Bool?
    @Option(help: "Largest source download, e.g. 64M (default 64M).") var maxSourceBytes: String?
    @Option(help: "Largest source in megapixels, frames counted (default 50).") var maxSourceResolution: String?
    @Option(help: "Frames of an animation processed: its first N; at 1 a still of the first frame (default 100).") var maxAnimationFrames: String?
    @Option(help: "Largest width or height a URL may ask for; every result is scaled down to fit it (default 8192).") var maxResultDimension: String?
    @Option(help: "Source download timeout in seconds (default 10).") var downloadTimeout: String?
    @Option(help: "Request timeout in seconds (default 30).") var requestTimeout: String?
    @Option(help: "Requests decoded, processed and encoded at once, once their source is in (default 2 x cores).") var workers: String?
    @Option(help: "Requests waiting for a worker before 429 (default 256).") var queueSize: String?
    @Option(help: "Cache-Control max-age in seconds (default 31536000).") var ttl: String?
    @Flag(name: .customLong("auto-webp"), inversion: .prefixedNo, help: "Serve WebP when Accept lists it and the URL names no format (default on).") var autoWebP: Bool?
    @Flag(name: .customLong("auto-avif"), inversion: .prefixedNo, help: "Serve AVIF when Accept lists it and the URL names no format (default on).") var autoAVIF: Bool?
    @Option(help: "Formats a source may keep, comma-separated (default jpeg,png,gif,webp,avif).") var preferredFormats: String?
    @Option(help: "Candidates of format:best, comma-separated (default jpeg,png,webp,avif).") var bestFormats: String?
    @Option(help: "SSIM target of auto quality when a URL gives none, 0.5-0.9999 (default 0.985).") var autoQualityTarget: String?
    @Option(help: "Quality when the URL gives none, 1-100, or auto: chosen per image (default 80).") var quality: String?
    @Option(help: "Cache directory (default $XDG_CACHE_HOME/webimage, else ~/.cache/webimage).") var cacheDir: String?
    @Option(help: "Disk cache limit, split between originals and variants, e.g. 2G (default 2G; 0: none).") var cacheMaxDisk: String?
    @Option(help: "Memory for encoded variants, e.g. 256M (default 256M).") var cacheMaxMemory: String?
    @Option(help: "Age in seconds after which unused disk entries go (default 2592000).") var cacheMaxAge: String?
    @Option(name: .customLong("trusted-signature"), help: "Signature accepted without a check, for URLs signed elsewhere (repeatable).") var trustedSignatures: [String] = []
    @Option(name: .customLong("preset"), help: "Preset name=options, e.g. thumb=rs:fill:300:300 (repeatable).") var presets: [String] = []
    @Flag(inversion: .prefixedNo, help: "Accept only preset names as options: /<signature>/<preset>[:<preset>...]/<source> (default off).") var onlyPresets: Bool?
    @Option(help: "Directory that local:///path sources are read from (default: none, local:// refused).") var localFilesystemRoot: String?
    @Option(help: "Hex AES key (16, 24 or 32 bytes) for enc/ sources (default: none, enc/ refused).") var sourceUrlEncryptionKey: String?
    @Option(name: .customLong("format-quality"), help: "Quality for one format when the URL gives none, e.g. webp=70 (repeatable).") var formatQualities: [String] = []
    @Flag(name: .customLong("enforce-webp"), inversion: .prefixedNo, help: "Serve WebP when Accept lists it even if the URL names a format (default off).") var enforceWebP: Bool?
    @Flag(name: .customLong("enforce-avif"), inversion: .prefixedNo, help: "Serve AVIF when Accept lists it even if the URL names a format (default off).") var enforceAVIF: Bool?
    @Flag(name: .customLong("auto-jxl"), inversion: .prefixedNo, help: "Serve JPEG XL when Accept lists it and the URL names no format, before AVIF and WebP (default off).") var autoJXL: Bool?
    @Flag(name: .customLong("enforce-jxl"), inversion: .prefixedNo, help: "Serve JPEG XL when Accept lists it even if the URL names a format, before AVIF and WebP (default off).") var enforceJXL: Bool?
    @Flag(inversion: .prefixedNo, help: "Write progressive JPEGs (default off).") var jpegProgressive: Bool?
    @Flag(inversion: .prefixedNo, help: "Write interlaced PNGs (default off).") var pngInterlaced: Bool?
    @Flag(inversion: .prefixedNo, help: "Write PNGs with a palette of --png-quantization-colors colours (default off).") var pngQuantize: Bool?
    @Option(help: "Colours of a quantised PNG's palette, 2-256; at most 2, 4, 16 or 256 are used (default 256).") var pngQuantizationColors: String?
    @Option(help: "WebP encoder effort, 1 (fastest) to 6 (smallest) (default 4).") var webpEffort: String?
    @Option(help: "WebP preset: default, photo, picture, drawing, icon or text (default default).") var webpPreset: String?
    @Option(help: "AVIF encoder speed, 0 (smallest) to 9 (fastest) (default 5; imgproxy's 8).") var avifSpeed: String?
    @Option(help: "JPEG XL encoder effort, 1 (fastest) to 9 (smallest) (default 4).") var jxlEffort: String?
    @Option(help: "Access-Control-Allow-Origin of image responses, e.g. * or https://example.com; OPTIONS preflights are answered (default none).") var allowOrigin: String?
    @Flag(name: .customLong("use-etag"), inversion: .prefixedNo, help: "Send ETag and answer If-None-Match with 304 (default on).") var useETag: Bool?
    @Flag(inversion: .prefixedNo, help: "Strip metadata unless the URL says otherwise (default on).") var stripMetadata: Bool?
    @Option(help: "User-Agent sent to sources.") var userAgent: String?
    @Option(help: "Redirects followed per source download (default 10).") var maxRedirects: String?
    @Flag(inversion: .prefixedNo, help: "Let URLs set their own limits with max_src_resolution, max_src_file_size, max_animation_frames, max_animation_frame_resolution, max_result_dimension (default off).") var allowSecurityOptions: Bool?
    @Option(help: "Watermark image file for the watermark option.") var watermarkPath: String?
    @Option(name: .customLong("watermark-url"), help: "Watermark image URL for the watermark option.") var watermarkURL: String?
    @Option(help: "Watermark image as base64 for the watermark option.") var watermarkData: String?
    @Option(help: "Base opacity of the watermark, 0-1 (default 1).") var watermarkOpacity: String?
    @Flag(inversion: .prefixedNo, help: "Serve the playground page at / (default off).") var playground: Bool?
    @Option(help: "Seconds a client may take to send a request, from connecting or its first byte (default 10).") var readRequestTimeout: String?
    @Option(help: "Seconds a kept-alive connection may wait for its next request; 0 turns keep-alive off (default 10).") var keepAliveTimeout: String?
    @Option(help: "Client connections open at once; more wait to be accepted until one closes (default 2048).") var maxClients: String?
    @Option(help: "Client connections one address (an IPv6 /64) may hold; one more is closed at once; 0: no cap (default 512; 0 under imgproxy's profile).") var maxClientsPerAddress: String?
    @Option(help: "Seconds a response may take to be written to its client; a client that does not read it in time is disconnected (default 10).") var writeResponseTimeout: String?
    @Option(help: "Bytes of the kernel's send buffer of each client connection, e.g. 256K; 0: the system's, which grows with the connection (default 0).") var clientSendBuffer: String?
    @Flag(inversion: .prefixedNo, help: "Answer errors with their full diagnostic instead of a short text per kind; never on a public server (default off).") var developmentErrors: Bool?
    @Option(help: "Bytes the workers may reserve at once for the images they decode, e.g. 2G; a worker whose image does not fit waits, one that never could is refused (default a quarter of the machine's or container's memory).") var memoryBudget: String?
    @Flag(name: .customLong("use-s3"), inversion: .prefixedNo, help: "Load s3://<bucket>/<key>[?<version ID>] sources, signed with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (default off).") var useS3: Bool?
    @Option(name: .customLong("s3-endpoint"), help: "S3-compatible server of s3:// sources, e.g. http://127.0.0.1:9000 (default: AWS).") var s3Endpoint: String?
    @Option(name: .customLong("s3-region"), help: "Region S3 requests are signed for (default: AWS_REGION, AWS_DEFAULT_REGION, else us-east-1).") var s3Region: String?
    @Flag(name: .customLong("s3-endpoint-use-path-style"), inversion: .prefixedNo, help: "Address buckets in the endpoint's path rather than as its subdomains (default on).") var s3EndpointUsePathStyle: Bool?
    @Option(name: .customLong("s3-allowed-bucket"), help: "The only bucket s3:// sources may name (repeatable; default: any).") var s3AllowedBuckets: [String] = []
    @Option(name: .customLong("s3-denied-bucket"), help: "A bucket s3:// sources may not name (repeatable).") var s3DeniedBuckets: [String] = []
    @Option(help: "Source downloads running at once; more wait, holding no worker (default 32).") var maxDownloads: String?
    @Option(help: "Source downloads from one host running at once (default 8).") var maxDownloadsPerHost: String?
    @Option(help: "Encodes one image may take (format:best x quality:auto x max_bytes); past it the best so far is served (default 24).") var maxEncodes: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default info).") var logLevel: String?
    @Option(help: "Log lines as pretty text, structured (logfmt), json or gcp (default pretty).") var logFormat: String?
    @Option(help: "HTTP proxy for sources, e.g. http://user:pass@proxy:3128 (default: HTTP_PROXY / HTTPS_PROXY; empty: none).") var proxy: String?
    @Option(help: "Source hosts fetched without the proxy, comma-separated as curl's NO_PROXY (default: NO_PROXY).") var noProxy: String?
    @Flag(inversion: .prefixedNo, help: "Exempt the proxy's own address from the source-address checks, for a proxy you run on a loopback or private address (default off).") var trustProxyAddress: Bool?
    @Option(help: "PEM file of certificate authorities trusted for sources, besides the system's.") var caFile: String?
    @Option(help: "PEM client certificate for sources that require one (mutual TLS).") var clientCert: String?
    @Option(help: "PEM private key of --client-cert (default: in the --client-cert file).") var clientKey: String?
    @Flag(inversion: .prefixedNo, help: "Start from imgproxy's defaults and answer with its status codes (default: on when any IMGPROXY_* variable is set).") var imgproxyDefaults: Bool?
    @Option(help: "Bearer token image requests must carry in Authorization (default: none).") var secret: String?
    @Option(name: .customLong("allowed-processing-option"), help: "The only processing option names URLs may use, e.g. w (repeatable; default: all).") var allowedProcessingOptions: [String] = []
    @Flag(inversion: .prefixedNo, help: "Keep copyright metadata when stripping metadata, unless the URL says (default off; imgproxy's on).") var keepCopyright: Bool?
    @Flag(inversion: .prefixedNo, help: "Strip colour profiles, converting to sRGB, unless the URL says (default on).") var stripColorProfile: Bool?
    @Flag(inversion: .prefixedNo, help: "Turn images upright by EXIF orientation unless the URL says (default on).") var autoRotate: Bool?
    @Flag(inversion: .prefixedNo, help: "Use a source's embedded thumbnail unless the URL says (default off).") var enforceThumbnail: Bool?
    @Option(help: "Source formats served unprocessed, comma-separated, e.g. gif,svg (default none).") var skipProcessingFormats: String?
    @Option(help: "Most megapixels of one frame of an animated source; 0: no such limit (default 0).") var maxAnimationFrameResolution: String?
    @Option(help: "Another path answered like /health, e.g. /healthz (default none).") var healthCheckPath: String?
    @Option(help: "Fallback image as base64, served in place of a source that cannot be downloaded (default none).") var fallbackImageData: String?
    @Option(help: "Fallback image file.") var fallbackImagePath: String?
    @Option(name: .customLong("fallback-image-url"), help: "Fallback image URL, downloaded at start-up.") var fallbackImageURL: String?
    @Option(name: .customLong("fallback-image-http-code"), help: "Status of a fallback image; 0: the error's (default 200).") var fallbackImageHTTPCode: String?
    @Option(help: "Prefix of every path, e.g. /images (default none).") var pathPrefix: String?
    @Option(help: "Put in every ETag, so that changing it changes them all (default none).") var etagBuster: String?
    @Flag(inversion: .prefixedNo, help: "Read client hints (Sec-CH-DPR, DPR, Sec-CH-Width, Width) as a URL's starting dpr and width (default off).") var enableClientHints: Bool?
    @Flag(inversion: .prefixedNo, help: "Send Last-Modified and answer If-Modified-Since (default on).") var useLastModified: Bool?
    @Option(help: "RFC 3339 time: an earlier Last-Modified is sent as it (default none).") var lastModifiedBuster: String?
    @Flag(inversion: .prefixedNo, help: "Resize in linear light instead of on sRGB's gamma-encoded values (default off).") var useLinearColorspace: Bool?
    @Option(help: "How far JPEG sources shrink in libjpeg before the resample: leave-resample (a factor of two or more left for the resample, as libvips' thumbnail) or to-target (as far as the target, as imgproxy; about 10 % less CPU) (default leave-resample; to-target under imgproxy's profile).") var jpegShrinkOnLoad: String?
    @Option(help: "Where ETag and Last-Modified come from: variant (the served bytes) or source, passed through with conditional requests sent on (default variant; source under imgproxy's profile).") var validators: String?
    @Flag(inversion: .prefixedNo, help: "Send the source's Cache-Control (else a max-age from its Expires) unless the URL sets expires (default off).") var cacheControlPassthrough: Bool?
    @Option(help: "host:port or :port of a listener of its own for /metrics (default: /metrics on the proxy's port).") var prometheusBind: String?
    @Option(help: "Prefix of the metrics' names instead of webimage (default webimage).") var prometheusNamespace: String?
    @Flag(inversion: .prefixedNo, help: "Send Link: <source>; rel=\"canonical\" with images of http(s) sources (default off).") var setCanonicalHeader: Bool?
    @Flag(inversion: .prefixedNo, help: "Send X-Origin-Width, X-Origin-Height, X-Origin-Content-Length, X-Result-Width and X-Result-Height with images (default off).") var enableDebugHeaders: Bool?
    @Option(help: "Seconds a connection to a source stays open, idle, for the next download; 0: closed after each (default 60; 90 under imgproxy's profile).") var sourceKeepAliveTimeout: String?
    @Option(help: "Seconds a stop waits for the requests in flight before cutting them off and closing every connection; 0: at once (default 20).") var gracefulStopTimeout: String?
    @Option(help: "Separator of an option's name and arguments, one character (default :).") var argumentsSeparator: String?
    @Option(name: .customLong("base-url"), help: "Put in front of source URLs that do not start with it (default none).") var baseURL: String?
    @Option(help: "Source URL rewrites, pattern=replacement;… with * for a path segment's characters and $1 for what it matched.") var urlReplacements: String?
    @Flag(name: .customLong("base64-url-includes-filename"), inversion: .prefixedNo, help: "A base64 source in several segments ends with a file name segment (default off).") var base64URLIncludesFilename: Bool?
    @Option(name: .customLong("fallback-image-ttl"), help: "Cache-Control max-age of a fallback image in seconds (default: the TTL).") var fallbackImageTTL: String?

    func run() async throws {
        // Before any work starts: a request's task then continues on its connection's thread.
        WebImageServer.runConcurrencyOnEventLoops()
        let environment = ProcessInfo.processInfo.environment
        var profileChoice = imgproxyDefaults
        if profileChoice == nil {
            do {
                profileChoice = try ServerSetting.boolean(named: "WEBIMAGE_IMGPROXY_DEFAULTS", in: environment)
            } catch {
                throw ValidationError(error.message)
            }
        }
        let profile = ServerProfile.chosen(environment: environment, imgproxyDefaults: profileChoice)
        var config = profile.defaults
        let unknownImgproxySettings: [String]
        do {
            // Weakest first: HTTP_PROXY and friends, IMGPROXY_*, then WEBIMAGE_*, then flags.
            config.readStandardProxyVariables(environment)
            unknownImgproxySettings = try ImgproxyEnvironment.apply(environment, to: &config)
            try ServerSetting.apply(environment: environment, to: &config)
            try applyFlags(to: &config)
            config.s3Environment = environment.filter { $0.key.hasPrefix("AWS_") }
            try config.validate()
        } catch {
            throw ValidationError(error.message)
        }
        let formatName = logFormat ?? environment["WEBIMAGE_LOG_FORMAT"] ?? ImgproxyEnvironment.logFormat(environment) ?? "pretty"
        guard let format = LogFormat(name: formatName) else {
            throw ValidationError("--log-format / WEBIMAGE_LOG_FORMAT / IMGPROXY_LOG_FORMAT: '\(formatName)' is not a log format (pretty, structured, json, gcp)")
        }
        var logger = format == .pretty ? Logger(label: "webimage.serve") : Logger(label: "webimage.serve") { format.handler(label: $0) }
        let level = logLevel ?? environment["WEBIMAGE_LOG_LEVEL"] ?? ImgproxyEnvironment.logLevel(environment) ?? "info"
        guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
            throw ValidationError("--log-level / WEBIMAGE_LOG_LEVEL / IMGPROXY_LOG_LEVEL: '\(level)' is not a log level (trace, debug, info, notice, warning, error, critical)")
        }
        logger.logLevel = parsed
        logger.info("\(profile.startupLine(imgproxyDefaults: profileChoice))")
        if let warning = ImgproxyEnvironment.warning(ignored: unknownImgproxySettings) {
            logger.warning("\(warning)")
        }

        logger.debug("allocator: \(AllocatorSettings.summary)")

        let telemetry: ProxyTelemetry
        do {
            // Before the server: its downloader and request spans use the tracer bootstrapped then.
            telemetry = try ProxyTelemetry.bootstrap(try TelemetryConfiguration(environment: environment), logger: logger)
        } catch {
            throw ValidationError(error.message)
        }

        let server = try ProxyServer(config: config, logger: logger, telemetry: telemetry)
        let host = config.host
        let examplePath = config.examplePath()
        try await server.run(services: telemetry.services) { port in
            let example = "http://\(host):\(port)\(examplePath)"
            // Written straight to the file descriptor: a test or script reading the pipe sees it at once.
            FileHandle.standardOutput.write(Data("webimage serve: listening on http://\(host):\(port)\nexample: \(example)\n".utf8))
        }
    }

    /// Flags given on the command line replace the environment's values.
    private func applyFlags(to config: inout ServerConfig) throws(ServerConfigError) {
        let single: [(ServerSetting, String?)] = [
            (.bind, bind), (.port, port), (.signatureSize, signatureSize), (.allowLoopback, allowLoopback.map(String.init)),
            (.allowPrivate, allowPrivate.map(String.init)), (.allowLinkLocal, allowLinkLocal.map(String.init)), (.maxSourceBytes, maxSourceBytes),
            (.maxSourceResolution, maxSourceResolution), (.maxAnimationFrames, maxAnimationFrames),
            (.maxResultDimension, maxResultDimension), (.downloadTimeout, downloadTimeout), (.requestTimeout, requestTimeout),
            (.workers, workers), (.queueSize, queueSize), (.ttl, ttl), (.autoWebP, autoWebP.map(String.init)), (.autoAVIF, autoAVIF.map(String.init)),
            (.preferredFormats, preferredFormats), (.bestFormats, bestFormats), (.autoQualityTarget, autoQualityTarget), (.quality, quality), (.cacheDir, cacheDir), (.cacheMaxDisk, cacheMaxDisk),
            (.cacheMaxMemory, cacheMaxMemory), (.cacheMaxAge, cacheMaxAge),
            (.onlyPresets, onlyPresets.map(String.init)), (.localFilesystemRoot, localFilesystemRoot),
            (.sourceURLEncryptionKey, sourceUrlEncryptionKey), (.enforceWebP, enforceWebP.map(String.init)),
            (.enforceAVIF, enforceAVIF.map(String.init)), (.useETag, useETag.map(String.init)),
            (.autoJXL, autoJXL.map(String.init)), (.enforceJXL, enforceJXL.map(String.init)),
            (.jpegProgressive, jpegProgressive.map(String.init)), (.pngInterlaced, pngInterlaced.map(String.init)),
            (.pngQuantize, pngQuantize.map(String.init)), (.pngQuantizationColors, pngQuantizationColors),
            (.webpEffort, webpEffort), (.webpPreset, webpPreset), (.avifSpeed, avifSpeed), (.jxlEffort, jxlEffort),
            (.allowOrigin, allowOrigin),
            (.stripMetadata, stripMetadata.map(String.init)), (.userAgent, userAgent), (.maxRedirects, maxRedirects),
            (.allowSecurityOptions, allowSecurityOptions.map(String.init)), (.watermarkPath, watermarkPath),
            (.watermarkURL, watermarkURL), (.watermarkData, watermarkData), (.watermarkOpacity, watermarkOpacity),
            (.playground, playground.map(String.init)), (.readRequestTimeout, readRequestTimeout),
            (.keepAliveTimeout, keepAliveTimeout), (.maxClients, maxClients), (.memoryBudget, memoryBudget),
            (.maxClientsPerAddress, maxClientsPerAddress), (.writeResponseTimeout, writeResponseTimeout),
            (.developmentErrors, developmentErrors.map(String.init)), (.clientSendBuffer, clientSendBuffer),
            (.useS3, useS3.map(String.init)), (.s3Endpoint, s3Endpoint), (.s3Region, s3Region),
            (.s3EndpointUsePathStyle, s3EndpointUsePathStyle.map(String.init)),
            (.proxy, proxy), (.noProxy, noProxy), (.trustProxyAddress, trustProxyAddress.map(String.init)),
            (.caFile, caFile), (.clientCert, clientCert), (.clientKey, clientKey),
            (.secret, secret), (.keepCopyright, keepCopyright.map(String.init)), (.stripColorProfile, stripColorProfile.map(String.init)),
            (.autoRotate, autoRotate.map(String.init)), (.enforceThumbnail, enforceThumbnail.map(String.init)),
            (.skipProcessingFormats, skipProcessingFormats), (.maxAnimationFrameResolution, maxAnimationFrameResolution),
            (.healthCheckPath, healthCheckPath), (.fallbackImageData, fallbackImageData), (.fallbackImagePath, fallbackImagePath),
            (.fallbackImageURL, fallbackImageURL), (.fallbackImageHTTPCode, fallbackImageHTTPCode), (.fallbackImageTTL, fallbackImageTTL),
            (.pathPrefix, pathPrefix), (.argumentsSeparator, argumentsSeparator), (.baseURL, baseURL), (.urlReplacements, urlReplacements),
            (.base64URLIncludesFilename, base64URLIncludesFilename.map(String.init)), (.etagBuster, etagBuster),
            (.useLastModified, useLastModified.map(String.init)), (.lastModifiedBuster, lastModifiedBuster),
            (.enableClientHints, enableClientHints.map(String.init)),
            (.validators, validators), (.cacheControlPassthrough, cacheControlPassthrough.map(String.init)),
            (.prometheusBind, prometheusBind), (.prometheusNamespace, prometheusNamespace), (.gracefulStopTimeout, gracefulStopTimeout),
            (.enableDebugHeaders, enableDebugHeaders.map(String.init)), (.sourceKeepAliveTimeout, sourceKeepAliveTimeout),
            (.setCanonicalHeader, setCanonicalHeader.map(String.init)), (.jpegShrinkOnLoad, jpegShrinkOnLoad),
            (.useLinearColorspace, useLinearColorspace.map(String.init)),
            (.maxDownloads, maxDownloads), (.maxDownloadsPerHost, maxDownloadsPerHost), (.maxEncodes, maxEncodes),
        ]
        for (setting, value) in single {
            if let value { try setting.apply([value], to: &config) }
        }
        let lists: [(ServerSetting, [String])] = [
            (.key, keys), (.salt, salts), (.allowedSource, allowedSources), (.preset, presets), (.formatQuality, formatQualities), (.trustedSignature, trustedSignatures),
            (.s3AllowedBucket, s3AllowedBuckets), (.s3DeniedBucket, s3DeniedBuckets), (.allowedProcessingOption, allowedProcessingOptions),
        ]
        for (setting, values) in lists where !values.isEmpty {
            try setting.apply(values, to: &config)
        }
    }
}
