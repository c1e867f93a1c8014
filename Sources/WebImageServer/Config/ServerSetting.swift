import Foundation
import WebImage

/// One setting of ``ServerConfig`` by name: its `--flag`, its `WEBIMAGE_*` variable, and
/// how its text is parsed. Flags and the environment go through the same parser, so both
/// give the same messages.
public enum ServerSetting: String, CaseIterable, Sendable {
    /// Where the server listens, how URLs are signed, and which sources and source addresses
    /// are allowed.
    case bind, port, key, salt, signatureSize, allowedSource, allowLoopback, allowPrivate, allowLinkLocal
    /// Limits on a source's bytes, pixels and frames, and on a result's width and height.
    case maxSourceBytes, maxSourceResolution, maxAnimationFrames, maxResultDimension
    /// Timeouts, the workers and their queue, `Cache-Control`'s max age, the formats served by
    /// `Accept` or kept from the source, and the default quality.
    case downloadTimeout, requestTimeout, workers, queueSize, ttl, autoWebP, autoAVIF, preferredFormats, quality
    /// The disk and memory caches' location, sizes and age limit, and the named presets.
    case cacheDir, cacheMaxDisk, cacheMaxMemory, cacheMaxAge, preset
    /// Presets-only URLs, the root of `local://` sources, the key of `enc/` sources,
    /// per-format qualities, WebP and AVIF enforced by `Accept`, and ETags.
    case onlyPresets, localFilesystemRoot, sourceURLEncryptionKey, formatQuality, enforceWebP, enforceAVIF, useETag
    /// Metadata stripping, the `User-Agent` and redirects of source downloads, and the security
    /// options in URLs.
    case stripMetadata, userAgent, maxRedirects, allowSecurityOptions
    /// The watermark image and its opacity, signatures accepted without a check, and the
    /// playground page.
    case watermarkPath, watermarkURL, watermarkData, watermarkOpacity, trustedSignature, playground
    /// Auto quality's SSIM target and the candidates of `format:best`.
    case autoQualityTarget, bestFormats
    /// Client connections: the request read and keep-alive timeouts, the most clients, and
    /// the memory budget of the images being decoded.
    case readRequestTimeout, keepAliveTimeout, maxClients, memoryBudget
    /// `s3://` sources: whether they load, the endpoint, region and addressing style, and the
    /// buckets allowed and denied.
    case useS3, s3Endpoint, s3Region, s3EndpointUsePathStyle, s3AllowedBucket, s3DeniedBucket
    /// The proxies sources are fetched through, the hosts fetched direct, whether the proxies'
    /// own addresses pass the source guard, and TLS to sources: trusted authorities and a
    /// client certificate.
    case proxy, noProxy, trustProxyAddress, caFile, clientCert, clientKey
    /// The bearer token requests carry, the processing options URLs may use, and the
    /// server-wide defaults of `keep_copyright`, `strip_color_profile`, `auto_rotate` and
    /// `enforce_thumbnail`.
    case secret, allowedProcessingOption, keepCopyright, stripColorProfile, autoRotate, enforceThumbnail
    /// Formats served unprocessed, the most pixels of an animation's frame, and a second
    /// health check path.
    case skipProcessingFormats, maxAnimationFrameResolution, healthCheckPath
    /// The fallback image served for a source that cannot be downloaded, its status and its
    /// max age.
    case fallbackImageData, fallbackImagePath, fallbackImageURL, fallbackImageHTTPCode, fallbackImageTTL
    /// How URLs are read: the path prefix, the arguments separator, the base URL and rewrites
    /// of source URLs, and file names after base64 sources.
    case pathPrefix, argumentsSeparator, baseURL, urlReplacements, base64URLIncludesFilename
    /// The ETag buster, `Last-Modified` and its buster, and client hints.
    case etagBuster, useLastModified, lastModifiedBuster, enableClientHints
    /// Where `ETag` and `Last-Modified` come from, the source's `Cache-Control` passed on, the
    /// Prometheus listener and namespace, the graceful stop timeout, and the debug headers.
    case validators, cacheControlPassthrough, prometheusBind, prometheusNamespace, gracefulStopTimeout, enableDebugHeaders
    /// The keep-alive timeout of connections to sources, and the canonical `Link` header.
    case sourceKeepAliveTimeout, setCanonicalHeader
    /// JPEG XL served by `Accept`, progressive JPEGs, interlaced PNGs, and quantised PNGs and
    /// their palette size.
    case autoJXL, enforceJXL, jpegProgressive, pngInterlaced, pngQuantize, pngQuantizationColors
    /// The encoders' effort and speed for WebP, AVIF and JPEG XL, and the WebP preset.
    case webpEffort, webpPreset, avifSpeed, jxlEffort
    /// The `Access-Control-Allow-Origin` of the proxy's responses.
    case allowOrigin
    /// How far JPEG sources shrink in libjpeg on their way to a smaller decode, and resizes
    /// in linear light.
    case jpegShrinkOnLoad, useLinearColorspace
    /// The write timeout of responses, the most connections one client address may hold,
    /// error bodies with the full diagnostic, and the kernel's send buffer of client connections.
    case writeResponseTimeout, maxClientsPerAddress, developmentErrors, clientSendBuffer
    /// Source downloads at once, in all and per host, and the encodes one image may take.
    case maxDownloads, maxDownloadsPerHost, maxEncodes

    /// The command-line flag, without the leading dashes.
    public var flag: String {
        switch self {
        case .autoWebP: "auto-webp"
        case .autoAVIF: "auto-avif"
        case .enforceWebP: "enforce-webp"
        case .enforceAVIF: "enforce-avif"
        case .useETag: "use-etag"
        case .sourceURLEncryptionKey: "source-url-encryption-key"
        case .watermarkURL: "watermark-url"
        case .fallbackImageURL: "fallback-image-url"
        case .fallbackImageHTTPCode: "fallback-image-http-code"
        case .fallbackImageTTL: "fallback-image-ttl"
        case .baseURL: "base-url"
        case .base64URLIncludesFilename: "base64-url-includes-filename"
        case .autoJXL: "auto-jxl"
        case .enforceJXL: "enforce-jxl"
        default: rawValue.replacing(/([A-Z])/) { "-" + $0.output.1.lowercased() }
        }
    }

    /// The environment variable.
    public var environmentName: String {
        switch self {
        case .key: "WEBIMAGE_KEYS"
        case .salt: "WEBIMAGE_SALTS"
        case .allowedSource: "WEBIMAGE_ALLOWED_SOURCES"
        case .preset: "WEBIMAGE_PRESETS"
        case .trustedSignature: "WEBIMAGE_TRUSTED_SIGNATURES"
        case .s3AllowedBucket: "WEBIMAGE_S3_ALLOWED_BUCKETS"
        case .s3DeniedBucket: "WEBIMAGE_S3_DENIED_BUCKETS"
        case .allowedProcessingOption: "WEBIMAGE_ALLOWED_PROCESSING_OPTIONS"
        default: "WEBIMAGE_" + flag.uppercased().replacing("-", with: "_")
        }
    }

    /// Whether the setting holds a list: repeated flags, or a comma-separated variable.
    public var isList: Bool {
        [.key, .salt, .allowedSource, .preset, .formatQuality, .trustedSignature, .s3AllowedBucket, .s3DeniedBucket, .allowedProcessingOption]
            .contains(self)
    }

    /// Reads every `WEBIMAGE_*` variable of `environment` into `config`.
    public static func apply(environment: [String: String], to config: inout ServerConfig) throws(ServerConfigError) {
        for setting in allCases {
            guard let value = environment[setting.environmentName] else { continue }
            if setting.isList {
                let items = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                try setting.apply(items, to: &config)
            } else {
                try setting.apply([value], to: &config)
            }
        }
    }

    /// Sets the setting from its text form: the values of a list (replacing the list), or one value.
    public func apply(_ values: [String], to config: inout ServerConfig) throws(ServerConfigError) {
        let value = values.last ?? ""
        switch self {
        case .bind: config.host = value
        case .port: config.port = try integer(value)
        case .key: config.keys = values
        case .salt: config.salts = values
        case .signatureSize: config.signatureSize = try integer(value)
        case .allowedSource: config.allowedSources = values
        case .trustedSignature: config.trustedSignatures = values
        case .allowLoopback: config.allowLoopback = try boolean(value)
        case .allowPrivate: config.allowPrivate = try boolean(value)
        case .allowLinkLocal: config.allowLinkLocal = try boolean(value)
        case .maxSourceBytes: config.maxSourceBytes = try bytes(value)
        case .maxSourceResolution:
            // Megapixels, as imgproxy's IMGPROXY_MAX_SRC_RESOLUTION.
            guard let megapixels = Double(value), megapixels > 0, megapixels < 1_000_000 else { throw invalid(value, "a number of megapixels, e.g. 50") }
            config.maxSourceResolution = Int(megapixels * 1_000_000)
        case .maxAnimationFrames: config.maxAnimationFrames = try integer(value)
        case .maxResultDimension: config.maxResultDimension = try integer(value)
        case .downloadTimeout: config.downloadTimeout = try seconds(value)
        case .requestTimeout: config.requestTimeout = try seconds(value)
        case .workers: config.workers = try integer(value)
        case .queueSize: config.queueSize = try integer(value)
        case .ttl: config.ttl = try integer(value)
        case .autoWebP: config.autoWebP = try boolean(value)
        case .autoAVIF: config.autoAVIF = try boolean(value)
        case .preferredFormats: config.preferredFormats = try formats(value)
        case .bestFormats: config.bestFormats = try formats(value)
        case .quality:
            if value.trimmingCharacters(in: .whitespaces).lowercased() == "auto" {
                config.defaultAutoQuality = true
            } else {
                config.defaultQuality = try integer(value)
                config.defaultAutoQuality = false
            }
        case .autoQualityTarget:
            guard let target = Double(value.trimmingCharacters(in: .whitespaces)), (0.5...0.9999).contains(target) else {
                throw invalid(value, "an SSIM target from 0.5 to 0.9999, e.g. 0.985")
            }
            config.autoQualityTarget = target
        case .cacheDir: config.cacheDirectory = value
        case .cacheMaxDisk: config.cacheMaxDiskSize = try bytes(value)
        case .cacheMaxMemory: config.cacheMaxMemory = try bytes(value)
        case .cacheMaxAge: config.cacheMaxAge = try Double(seconds(value).components.seconds)
        case .preset:
            var presets: [String: String] = [:]
            for item in values {
                guard let equals = item.firstIndex(of: "="), equals != item.startIndex else {
                    throw invalid(item, "name=options, e.g. thumb=rs:fill:300:300/q:70")
                }
                presets[String(item[..<equals])] = String(item[item.index(after: equals)...])
            }
            config.presets = presets
        case .onlyPresets: config.onlyPresets = try boolean(value)
        case .localFilesystemRoot: config.localFilesystemRoot = value.isEmpty ? nil : value
        case .sourceURLEncryptionKey: config.sourceURLEncryptionKey = value.isEmpty ? nil : value
        case .formatQuality:
            var qualities: [ImageFormat: Int] = [:]
            for item in values {
                let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, let format = ImageFormat(name: parts[0]), let quality = Int(parts[1]) else {
                    throw invalid(item, "format=quality, e.g. webp=70 (formats jpeg, png, gif, webp, avif, heic, tiff, jxl)")
                }
                qualities[format] = quality
            }
            config.formatQuality = qualities
        case .enforceWebP: config.enforceWebP = try boolean(value)
        case .enforceAVIF: config.enforceAVIF = try boolean(value)
        case .useETag: config.useETag = try boolean(value)
        case .stripMetadata: config.stripMetadata = try boolean(value)
        case .userAgent: config.userAgent = value.isEmpty ? nil : value
        case .maxRedirects: config.maxRedirects = try integer(value)
        case .allowSecurityOptions: config.allowSecurityOptions = try boolean(value)
        case .watermarkPath: config.watermarkPath = value.isEmpty ? nil : value
        case .watermarkURL: config.watermarkURL = value.isEmpty ? nil : value
        case .watermarkData: config.watermarkData = value.isEmpty ? nil : value
        case .watermarkOpacity:
            guard let opacity = Double(value.trimmingCharacters(in: .whitespaces)), (0...1).contains(opacity) else {
                throw invalid(value, "an opacity from 0 to 1, e.g. 0.5")
            }
            config.watermarkOpacity = opacity
        case .playground: config.playground = try boolean(value)
        case .readRequestTimeout: config.readRequestTimeout = try seconds(value)
        case .keepAliveTimeout:
            // 0 turns keep-alive off, as imgproxy's IMGPROXY_KEEP_ALIVE_TIMEOUT=0.
            config.keepAliveTimeout = try secondsOrZero(value)
        case .maxClients: config.maxClients = try integer(value)
        case .writeResponseTimeout: config.writeResponseTimeout = try seconds(value)
        case .maxClientsPerAddress: config.maxClientsPerAddress = try integer(value)
        case .developmentErrors: config.developmentErrors = try boolean(value)
        case .clientSendBuffer: config.clientSendBufferSize = try bytes(value)
        case .memoryBudget: config.memoryBudget = try bytes(value)
        case .useS3: config.useS3 = try boolean(value)
        case .s3Endpoint: config.s3Endpoint = value.isEmpty ? nil : value
        case .s3Region: config.s3Region = value.isEmpty ? nil : value
        case .s3EndpointUsePathStyle: config.s3EndpointUsePathStyle = try boolean(value)
        case .s3AllowedBucket: config.s3AllowedBuckets = values
        case .s3DeniedBucket: config.s3DeniedBuckets = values
        case .proxy:
            config.httpProxy = value
            config.httpsProxy = value
        case .noProxy: config.noProxy = value
        case .trustProxyAddress: config.trustProxyAddress = try boolean(value)
        case .caFile: config.caFile = value.isEmpty ? nil : value
        case .clientCert: config.clientCertificateFile = value.isEmpty ? nil : value
        case .clientKey: config.clientKeyFile = value.isEmpty ? nil : value
        case .secret: config.secret = value.isEmpty ? nil : value
        case .healthCheckPath: config.healthCheckPath = value.isEmpty ? nil : value
        case .fallbackImageData: config.fallbackImageData = value.isEmpty ? nil : value
        case .fallbackImagePath: config.fallbackImagePath = value.isEmpty ? nil : value
        case .fallbackImageURL: config.fallbackImageURL = value.isEmpty ? nil : value
        case .fallbackImageHTTPCode: config.fallbackImageHTTPCode = try integer(value)
        case .pathPrefix: config.pathPrefix = value.isEmpty ? nil : value
        case .argumentsSeparator:
            guard value.unicodeScalars.count == 1, let separator = value.unicodeScalars.first else {
                throw invalid(value, "one character, e.g. : or ,")
            }
            config.argumentsSeparator = separator
        case .baseURL: config.baseURL = value.isEmpty ? nil : value
        case .urlReplacements: config.urlReplacements = value.isEmpty ? [] : try SourceURLRewrite.replacements(from: value)
        case .base64URLIncludesFilename: config.base64URLIncludesFilename = try boolean(value)
        case .etagBuster: config.etagBuster = value.isEmpty ? nil : value
        case .enableClientHints: config.enableClientHints = try boolean(value)
        case .useLinearColorspace: config.useLinearColorspace = try boolean(value)
        case .jpegShrinkOnLoad:
            guard let rule = ImageDecodeOptions.JPEGShrink(rawValue: value.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw invalid(value, "leave-resample or to-target")
            }
            config.jpegShrinkOnLoad = rule
        case .validators:
            guard let validators = ResponseValidators(rawValue: value.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw invalid(value, "variant or source")
            }
            config.validators = validators
        case .cacheControlPassthrough: config.cacheControlPassthrough = try boolean(value)
        case .enableDebugHeaders: config.enableDebugHeaders = try boolean(value)
        case .setCanonicalHeader: config.setCanonicalHeader = try boolean(value)
        case .sourceKeepAliveTimeout:
            // 0 turns keep-alive to sources off, as imgproxy's 0 does.
            config.sourceKeepAliveTimeout = try secondsOrZero(value)
        case .gracefulStopTimeout:
            // 0 cuts the requests in flight off at once, as imgproxy's 0 does.
            config.gracefulStopTimeout = try secondsOrZero(value)
        case .prometheusBind:
            let bind = value.trimmingCharacters(in: .whitespaces)
            guard !bind.isEmpty else {
                config.prometheusBind = nil
                return
            }
            guard ListenAddress(bind) != nil else { throw invalid(value, "host:port or :port, e.g. :9464 or 127.0.0.1:9464") }
            config.prometheusBind = bind
        case .prometheusNamespace:
            let namespace = value.trimmingCharacters(in: .whitespaces)
            guard !namespace.isEmpty else {
                config.prometheusNamespace = nil
                return
            }
            guard PrometheusNames.isPrefix(namespace) else {
                throw invalid(value, "a Prometheus name: letters, digits and _, not starting with a digit")
            }
            config.prometheusNamespace = namespace
        case .useLastModified: config.useLastModified = try boolean(value)
        case .lastModifiedBuster:
            // RFC 3339, as imgproxy reads IMGPROXY_LAST_MODIFIED_BUSTER.
            guard !value.isEmpty else {
                config.lastModifiedBuster = nil
                return
            }
            guard let date = try? Date(value.trimmingCharacters(in: .whitespaces), strategy: .iso8601) else {
                throw invalid(value, "an RFC 3339 time, e.g. 2026-01-31T12:00:00Z")
            }
            config.lastModifiedBuster = date
        case .fallbackImageTTL:
            let seconds = try integer(value)
            config.fallbackImageTTL = seconds > 0 ? seconds : nil
        case .allowedProcessingOption: config.allowedProcessingOptions = values
        case .keepCopyright: config.keepCopyright = try boolean(value)
        case .stripColorProfile: config.stripColorProfile = try boolean(value)
        case .autoRotate: config.autoRotate = try boolean(value)
        case .enforceThumbnail: config.enforceThumbnail = try boolean(value)
        case .skipProcessingFormats: config.skipProcessingFormats = value.trimmingCharacters(in: .whitespaces).isEmpty ? [] : try formats(value)
        case .autoJXL: config.autoJXL = try boolean(value)
        case .enforceJXL: config.enforceJXL = try boolean(value)
        case .jpegProgressive: config.jpegProgressive = try boolean(value)
        case .pngInterlaced: config.pngInterlaced = try boolean(value)
        case .pngQuantize: config.pngQuantize = try boolean(value)
        case .pngQuantizationColors: config.pngQuantizationColors = try integer(value)
        case .webpEffort: config.webpEffort = try integer(value)
        case .webpPreset:
            guard let preset = WebPPreset(rawValue: value.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw invalid(value, "a WebP preset: " + WebPPreset.allCases.map(\.rawValue).joined(separator: ", "))
            }
            config.webpPreset = preset
        case .avifSpeed: config.avifSpeed = try integer(value)
        case .jxlEffort: config.jxlEffort = try integer(value)
        case .allowOrigin: config.allowOrigin = value.isEmpty ? nil : value
        case .maxDownloads: config.maxDownloads = try integer(value)
        case .maxDownloadsPerHost: config.maxDownloadsPerHost = try integer(value)
        case .maxEncodes: config.maxEncodes = try integer(value)
        case .maxAnimationFrameResolution:
            // Megapixels, as imgproxy's IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION; 0 is no limit.
            guard let megapixels = Double(value.trimmingCharacters(in: .whitespaces)), megapixels >= 0, megapixels < 1_000_000 else {
                throw invalid(value, "a number of megapixels, e.g. 10, or 0 for no limit")
            }
            config.maxAnimationFrameResolution = megapixels == 0 ? nil : Int(megapixels * 1_000_000)
        }
    }

    /// A boolean environment variable read as the settings read booleans; `nil` when unset or empty.
    public static func boolean(named name: String, in environment: [String: String]) throws(ServerConfigError) -> Bool? {
        guard let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        guard let boolean = parsedBoolean(value) else {
            throw ServerConfigError("\(name): '\(value)' is not a boolean (true/false, t/f, 1/0, yes/no)")
        }
        return boolean
    }

    /// `true`/`false`, `t`/`f`, `1`/`0`, `yes`/`no`, `on`/`off` in any case; `nil` for anything else.
    static func parsedBoolean(_ value: String) -> Bool? {
        switch value.lowercased().trimmingCharacters(in: .whitespaces) {
        case "1", "t", "true", "yes", "on": true
        case "0", "f", "false", "no", "off": false
        default: nil
        }
    }

    private func invalid(_ value: String, _ expected: String) -> ServerConfigError {
        ServerConfigError("--\(flag) / \(environmentName): '\(value)' is not \(expected)")
    }

    /// A comma-separated list of format names.
    private func formats(_ value: String) throws(ServerConfigError) -> [ImageFormat] {
        var formats: [ImageFormat] = []
        for name in value.split(separator: ",") {
            guard let format = ImageFormat(name: name.trimmingCharacters(in: .whitespaces)) else {
                throw invalid(value, "a comma-separated list of jpeg, png, gif, webp, avif, heic, tiff, jxl")
            }
            formats.append(format)
        }
        return formats
    }

    private func integer(_ value: String) throws(ServerConfigError) -> Int {
        guard let number = Int(value.trimmingCharacters(in: .whitespaces)) else { throw invalid(value, "a whole number") }
        return number
    }

    private func boolean(_ value: String) throws(ServerConfigError) -> Bool {
        guard let boolean = Self.parsedBoolean(value) else { throw invalid(value, "a boolean (true/false, t/f, 1/0, yes/no)") }
        return boolean
    }

    /// Bytes, with an optional K, M or G suffix (powers of 1024).
    private func bytes(_ value: String) throws(ServerConfigError) -> Int {
        var text = value.trimmingCharacters(in: .whitespaces).uppercased()
        if text.hasSuffix("B") { text.removeLast() }
        var multiplier = 1
        if let last = text.last, let shift = ["K": 10, "M": 20, "G": 30][String(last)] {
            multiplier = 1 << shift
            text.removeLast()
        }
        guard let number = Int(text), number >= 0, number <= Int.max / multiplier else {
            throw invalid(value, "a byte count, e.g. 10485760, 512K, 64M or 2G")
        }
        return number * multiplier
    }

    /// ``seconds(_:)``, or zero for `0`: the settings where imgproxy reads 0 as "off".
    private func secondsOrZero(_ value: String) throws(ServerConfigError) -> Duration {
        Double(value.trimmingCharacters(in: .whitespaces)) == 0 ? .zero : try seconds(value)
    }

    /// Seconds, decimals allowed, with an optional `s` or `ms` suffix.
    private func seconds(_ value: String) throws(ServerConfigError) -> Duration {
        let text = value.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasSuffix("ms"), let millis = Double(text.dropLast(2)), millis > 0 {
            return .milliseconds(Int64(millis))
        }
        let number = text.hasSuffix("s") ? String(text.dropLast()) : text
        guard let seconds = Double(number), seconds > 0, seconds < 1e9 else { throw invalid(value, "a duration in seconds, e.g. 10, 2.5 or 500ms") }
        return .milliseconds(Int64(seconds * 1000))
    }
}
