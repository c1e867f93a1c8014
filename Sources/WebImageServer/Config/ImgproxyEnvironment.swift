import Foundation
import WebImage

/// imgproxy's `IMGPROXY_*` environment variables, read with imgproxy's meaning and format
/// into a ``ServerConfig``, so that an imgproxy deployment's configuration carries over.
///
/// Apply them first: `WEBIMAGE_*` variables (``ServerSetting/apply(environment:to:)``) and
/// flags given afterwards replace what they set. A variable set to an empty or blank value
/// is skipped, as imgproxy skips it.
///
/// Where imgproxy reads 0 as "no limit" (`IMGPROXY_MAX_SRC_FILE_SIZE`,
/// `IMGPROXY_MAX_RESULT_DIMENSION`, `IMGPROXY_REQUESTS_QUEUE_SIZE`, `IMGPROXY_MAX_CLIENTS`), the
/// configuration keeps its default: bounded, except the result dimension under
/// ``ServerProfile/imgproxy``, which is libvips' own bound there. An allowed source naming only a host without the `/` after it
/// (`https://example.com`) gets that `/`, so it cannot also allow `https://example.com.evil.org`.
public enum ImgproxyEnvironment {
    /// Reads every applied `IMGPROXY_*` variable of `environment` into `config`.
    /// - Returns: the `IMGPROXY_*` variables that are set but not applied, sorted: imgproxy's
    ///   own that WebImage leaves out (``unapplied``), and names imgproxy does not have
    ///   either. The server runs without them (see ``warning(ignored:)``).
    /// - Throws: ``ServerConfigError`` naming the variable whose value cannot be read, or a
    ///   set variable WebImage cannot run without (``Unapplied/stopsStartup``).
    @discardableResult
    public static func apply(_ environment: [String: String], to config: inout ServerConfig) throws(ServerConfigError) -> [String] {
        var ignored: [String] = []
        for name in environment.keys.sorted() where name.hasPrefix("IMGPROXY_") {
            guard let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            guard let variable = variables[name] else {
                if let gap = unapplied[name], gap.stopsStartup, !isDefaultFalse(value) {
                    throw ServerConfigError("\(name) is set, but \(gap.reason); unset it to start (docs/imgproxy.md lists every imgproxy variable)")
                }
                ignored.append(name)
                continue
            }
            try variable.apply(value, environment, &config)
        }
        // The lists read from two variables each.
        var presets = try presetItems(environment)
        if let path = environment["IMGPROXY_PRESETS_PATH"], !path.trimmingCharacters(in: .whitespaces).isEmpty {
            presets += try presetFileItems(path)
        }
        if !presets.isEmpty {
            try setting(.preset, presets, named: "IMGPROXY_PRESETS", &config)
        }
        return ignored
    }

    /// The names of the `IMGPROXY_*` variables ``apply(_:to:)`` applies.
    public static var appliedNames: Set<String> { Set(variables.keys) }

    /// The one start-up warning listing the set variables ``apply(_:to:)`` did not apply,
    /// each with the reason, or `nil` when there are none.
    public static func warning(ignored: [String]) -> String? {
        guard !ignored.isEmpty else { return nil }
        let items = ignored.map { name in "\(name) (\(unapplied[name]?.reason ?? "imgproxy has no such variable"))" }
        return "ignoring \(ignored.count) imgproxy setting\(ignored.count == 1 ? "" : "s"): \(items.joined(separator: "; "))"
    }

    /// The log level `IMGPROXY_LOG_LEVEL` names (`debug`, `info`, `warn`, `error`) as a
    /// swift-log level name, or `nil` when it is not set.
    public static func logLevel(_ environment: [String: String]) -> String? {
        guard let value = environment["IMGPROXY_LOG_LEVEL"]?.trimmingCharacters(in: .whitespaces).lowercased(), !value.isEmpty else { return nil }
        return value == "warn" ? "warning" : value
    }

    /// The log format `IMGPROXY_LOG_FORMAT` names (`pretty`, `structured`, `json`, `gcp`),
    /// or `nil` when it is not set.
    public static func logFormat(_ environment: [String: String]) -> String? {
        guard let value = environment["IMGPROXY_LOG_FORMAT"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    /// How one variable is read.
    private struct Variable: Sendable {
        let apply: @Sendable (String, [String: String], inout ServerConfig) throws(ServerConfigError) -> Void
    }

    /// Every understood variable by name.
    private static let variables: [String: Variable] = {
        var table: [String: Variable] = [:]
        func same(_ name: String, _ setting: ServerSetting) {
            table[name] = Variable { value, _, config throws(ServerConfigError) in
                try ImgproxyEnvironment.setting(setting, setting.isList ? list(value) : [value], named: name, &config)
            }
        }
        func custom(_ name: String, _ apply: @escaping @Sendable (String, [String: String], inout ServerConfig) throws(ServerConfigError) -> Void) {
            table[name] = Variable(apply: apply)
        }
        /// imgproxy's 0 means "no limit": WebImage keeps its bounded default.
        func zeroKeepsDefault(_ name: String, _ setting: ServerSetting) {
            custom(name) { value, _, config throws(ServerConfigError) in
                guard Int(value.trimmingCharacters(in: .whitespaces)) != 0 else { return }
                try ImgproxyEnvironment.setting(setting, [value], named: name, &config)
            }
        }

        same("IMGPROXY_KEY", .key)
        same("IMGPROXY_SALT", .salt)
        same("IMGPROXY_SIGNATURE_SIZE", .signatureSize)
        same("IMGPROXY_TRUSTED_SIGNATURES", .trustedSignature)
        custom("IMGPROXY_BIND") { value, _, config throws(ServerConfigError) in try bind(value, &config) }
        same("IMGPROXY_MAX_SRC_RESOLUTION", .maxSourceResolution)
        zeroKeepsDefault("IMGPROXY_MAX_SRC_FILE_SIZE", .maxSourceBytes)
        same("IMGPROXY_MAX_ANIMATION_FRAMES", .maxAnimationFrames)
        zeroKeepsDefault("IMGPROXY_MAX_RESULT_DIMENSION", .maxResultDimension)
        same("IMGPROXY_WORKERS", .workers)
        same("IMGPROXY_CONCURRENCY", .workers)
        zeroKeepsDefault("IMGPROXY_REQUESTS_QUEUE_SIZE", .queueSize)
        same("IMGPROXY_TTL", .ttl)
        same("IMGPROXY_QUALITY", .quality)
        custom("IMGPROXY_FORMAT_QUALITY") { value, _, config throws(ServerConfigError) in
            // Formats WebImage does not write (bmp, ico, svg) have no quality to set.
            let items = list(value).filter { item in
                let format = item.split(separator: "=").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                return !["bmp", "ico", "svg"].contains(format)
            }
            try ImgproxyEnvironment.setting(.formatQuality, items, named: "IMGPROXY_FORMAT_QUALITY", &config)
        }
        same("IMGPROXY_AUTO_WEBP", .autoWebP)
        same("IMGPROXY_ENABLE_WEBP_DETECTION", .autoWebP)
        same("IMGPROXY_ENFORCE_WEBP", .enforceWebP)
        same("IMGPROXY_AUTO_AVIF", .autoAVIF)
        same("IMGPROXY_ENABLE_AVIF_DETECTION", .autoAVIF)
        same("IMGPROXY_ENFORCE_AVIF", .enforceAVIF)
        same("IMGPROXY_AUTO_JXL", .autoJXL)
        same("IMGPROXY_ENFORCE_JXL", .enforceJXL)
        same("IMGPROXY_JPEG_PROGRESSIVE", .jpegProgressive)
        same("IMGPROXY_PNG_INTERLACED", .pngInterlaced)
        same("IMGPROXY_PNG_QUANTIZE", .pngQuantize)
        same("IMGPROXY_PNG_QUANTIZATION_COLORS", .pngQuantizationColors)
        same("IMGPROXY_WEBP_EFFORT", .webpEffort)
        same("IMGPROXY_WEBP_PRESET", .webpPreset)
        same("IMGPROXY_AVIF_SPEED", .avifSpeed)
        same("IMGPROXY_JXL_EFFORT", .jxlEffort)
        same("IMGPROXY_ALLOW_ORIGIN", .allowOrigin)
        same("IMGPROXY_PREFERRED_FORMATS", .preferredFormats)
        custom("IMGPROXY_ALLOWED_SOURCES") { value, _, config throws(ServerConfigError) in
            try ImgproxyEnvironment.setting(.allowedSource, list(value).map(hostPrefixWithSlash), named: "IMGPROXY_ALLOWED_SOURCES", &config)
        }
        same("IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", .allowLoopback)
        same("IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES", .allowPrivate)
        same("IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", .allowLinkLocal)
        // Read together with IMGPROXY_PRESETS_PATH after the table (presetItems).
        custom("IMGPROXY_PRESETS") { _, _, _ in }
        custom("IMGPROXY_PRESETS_SEPARATOR") { _, _, _ in }
        custom("IMGPROXY_PRESETS_PATH") { _, _, _ in }
        same("IMGPROXY_ONLY_PRESETS", .onlyPresets)
        same("IMGPROXY_USE_ETAG", .useETag)
        same("IMGPROXY_LOCAL_FILESYSTEM_ROOT", .localFilesystemRoot)
        same("IMGPROXY_SOURCE_URL_ENCRYPTION_KEY", .sourceURLEncryptionKey)
        same("IMGPROXY_WATERMARK_PATH", .watermarkPath)
        same("IMGPROXY_WATERMARK_URL", .watermarkURL)
        same("IMGPROXY_WATERMARK_DATA", .watermarkData)
        same("IMGPROXY_WATERMARK_OPACITY", .watermarkOpacity)
        same("IMGPROXY_READ_REQUEST_TIMEOUT", .readRequestTimeout)
        custom("IMGPROXY_READ_TIMEOUT") { value, environment, config throws(ServerConfigError) in
            // imgproxy's former name: the current one wins when both are set.
            guard environment["IMGPROXY_READ_REQUEST_TIMEOUT"]?.trimmingCharacters(in: .whitespaces).isEmpty ?? true else { return }
            try ImgproxyEnvironment.setting(.readRequestTimeout, [value], named: "IMGPROXY_READ_TIMEOUT", &config)
        }
        same("IMGPROXY_KEEP_ALIVE_TIMEOUT", .keepAliveTimeout)
        zeroKeepsDefault("IMGPROXY_MAX_CLIENTS", .maxClients)
        same("IMGPROXY_WRITE_RESPONSE_TIMEOUT", .writeResponseTimeout)
        same("IMGPROXY_DEVELOPMENT_ERRORS_MODE", .developmentErrors)
        same("IMGPROXY_DOWNLOAD_TIMEOUT", .downloadTimeout)
        same("IMGPROXY_TIMEOUT", .requestTimeout)
        same("IMGPROXY_WRITE_TIMEOUT", .requestTimeout)
        same("IMGPROXY_ALLOW_SECURITY_OPTIONS", .allowSecurityOptions)
        same("IMGPROXY_STRIP_METADATA", .stripMetadata)
        custom("IMGPROXY_USER_AGENT") { value, _, config throws(ServerConfigError) in
            let agent = value.replacing("%current_version", with: WebImageVersion.current)
            try ImgproxyEnvironment.setting(.userAgent, [agent], named: "IMGPROXY_USER_AGENT", &config)
        }
        same("IMGPROXY_MAX_REDIRECTS", .maxRedirects)
        same("IMGPROXY_USE_S3", .useS3)
        same("IMGPROXY_S3_ENDPOINT", .s3Endpoint)
        same("IMGPROXY_S3_REGION", .s3Region)
        same("IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE", .s3EndpointUsePathStyle)
        same("IMGPROXY_S3_ALLOWED_BUCKETS", .s3AllowedBucket)
        same("IMGPROXY_S3_DENIED_BUCKETS", .s3DeniedBucket)
        same("IMGPROXY_SECRET", .secret)
        same("IMGPROXY_ALLOWED_PROCESSING_OPTIONS", .allowedProcessingOption)
        same("IMGPROXY_KEEP_COPYRIGHT", .keepCopyright)
        same("IMGPROXY_STRIP_COLOR_PROFILE", .stripColorProfile)
        same("IMGPROXY_USE_LINEAR_COLORSPACE", .useLinearColorspace)
        same("IMGPROXY_AUTO_ROTATE", .autoRotate)
        same("IMGPROXY_ENFORCE_THUMBNAIL", .enforceThumbnail)
        same("IMGPROXY_SKIP_PROCESSING_FORMATS", .skipProcessingFormats)
        same("IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION", .maxAnimationFrameResolution)
        same("IMGPROXY_HEALTH_CHECK_PATH", .healthCheckPath)
        same("IMGPROXY_FALLBACK_IMAGE_DATA", .fallbackImageData)
        same("IMGPROXY_FALLBACK_IMAGE_PATH", .fallbackImagePath)
        same("IMGPROXY_FALLBACK_IMAGE_URL", .fallbackImageURL)
        same("IMGPROXY_FALLBACK_IMAGE_HTTP_CODE", .fallbackImageHTTPCode)
        same("IMGPROXY_FALLBACK_IMAGE_TTL", .fallbackImageTTL)
        same("IMGPROXY_PATH_PREFIX", .pathPrefix)
        same("IMGPROXY_ETAG_BUSTER", .etagBuster)
        same("IMGPROXY_ENABLE_CLIENT_HINTS", .enableClientHints)
        same("IMGPROXY_USE_LAST_MODIFIED", .useLastModified)
        same("IMGPROXY_LAST_MODIFIED_BUSTER", .lastModifiedBuster)
        same("IMGPROXY_ARGUMENTS_SEPARATOR", .argumentsSeparator)
        same("IMGPROXY_BASE_URL", .baseURL)
        same("IMGPROXY_URL_REPLACEMENTS", .urlReplacements)
        same("IMGPROXY_BASE64_URL_INCLUDES_FILENAME", .base64URLIncludesFilename)
        same("IMGPROXY_CACHE_CONTROL_PASSTHROUGH", .cacheControlPassthrough)
        same("IMGPROXY_GRACEFUL_STOP_TIMEOUT", .gracefulStopTimeout)
        same("IMGPROXY_ENABLE_DEBUG_HEADERS", .enableDebugHeaders)
        same("IMGPROXY_SET_CANONICAL_HEADER", .setCanonicalHeader)
        same("IMGPROXY_CLIENT_KEEP_ALIVE_TIMEOUT", .sourceKeepAliveTimeout)
        same("IMGPROXY_PROMETHEUS_BIND", .prometheusBind)
        same("IMGPROXY_PROMETHEUS_NAMESPACE", .prometheusNamespace)
        // Read by `webimage serve` with the OTEL_* variables (TelemetryConfiguration).
        custom("IMGPROXY_OPEN_TELEMETRY_ENABLE") { _, _, _ in }
        custom("IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS") { _, _, _ in }
        // Read by `webimage serve` for its logger (logLevel(_:), logFormat(_:)).
        custom("IMGPROXY_LOG_LEVEL") { _, _, _ in }
        custom("IMGPROXY_LOG_FORMAT") { _, _, _ in }
        return table
    }()

    /// Applies `values` to `setting`, naming `name` in the error.
    private static func setting(_ setting: ServerSetting, _ values: [String], named name: String, _ config: inout ServerConfig) throws(ServerConfigError) {
        do {
            try setting.apply(values, to: &config)
        } catch {
            throw ServerConfigError(error.message.replacing("--\(setting.flag) / \(setting.environmentName)", with: name))
        }
    }

    /// imgproxy's comma-separated lists: items trimmed, empty items dropped.
    private static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `IMGPROXY_BIND`: `host:port`, `:port` (every interface), `[v6]:port`.
    private static func bind(_ value: String, _ config: inout ServerConfig) throws(ServerConfigError) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ServerConfigError("IMGPROXY_BIND: '\(value)' is not host:port, e.g. :8080 or 127.0.0.1:8080")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        config.host = host.isEmpty ? "0.0.0.0" : host
        config.port = port
    }

    /// `https://example.com` → `https://example.com/`: a prefix naming only a host stops at it.
    private static func hostPrefixWithSlash(_ prefix: String) -> String {
        guard let schemeEnd = prefix.range(of: "://") else { return prefix }
        return prefix[schemeEnd.upperBound...].contains("/") ? prefix : prefix + "/"
    }

    /// `IMGPROXY_PRESETS` split by `IMGPROXY_PRESETS_SEPARATOR` (default `,`).
    private static func presetItems(_ environment: [String: String]) throws(ServerConfigError) -> [String] {
        guard let value = environment["IMGPROXY_PRESETS"], !value.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        let separator = environment["IMGPROXY_PRESETS_SEPARATOR"].flatMap { $0.isEmpty ? nil : $0 } ?? ","
        return try presetDefinitions(value.components(separatedBy: separator), source: "IMGPROXY_PRESETS")
    }

    /// The presets in the file at `path`, one `name=options` a line.
    private static func presetFileItems(_ path: String) throws(ServerConfigError) -> [String] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ServerConfigError("IMGPROXY_PRESETS_PATH: cannot read '\(path)': \(error.localizedDescription)")
        }
        return try presetDefinitions(text.components(separatedBy: "\n"), source: "IMGPROXY_PRESETS_PATH")
    }

    /// Preset definitions as imgproxy reads them: blanks around name and options trimmed,
    /// empty entries and `#` comments skipped, exactly one `=`.
    private static func presetDefinitions(_ items: [String], source: String) throws(ServerConfigError) -> [String] {
        var definitions: [String] = []
        for item in items {
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let parts = trimmed.split(separator: "=", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ServerConfigError("\(source): '\(trimmed)' is not name=options, e.g. thumb=rs:fill:300:300/q:70")
            }
            definitions.append(parts[0] + "=" + parts[1])
        }
        return definitions
    }
}
