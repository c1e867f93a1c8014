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
            try variable.apply(name, value, environment, &config)
        }
        // The lists read from two variables each.
        var presets = try presetItems(environment)
        if let path = environment[presetsPathName], !path.trimmingCharacters(in: .whitespaces).isEmpty {
            presets += try presetFileItems(path)
        }
        if !presets.isEmpty {
            try setting(.preset, presets, named: presetsName, &config)
        }
        return ignored
    }

    /// The names of the `IMGPROXY_*` variables ``apply(_:to:)`` applies.
    public static var appliedNames: Set<String> { Set(variables.keys) }

    /// The one start-up warning listing the set variables ``apply(_:to:)`` did not apply,
    /// each with the reason, or `nil` when there are none.
    public static func warning(ignored: [String]) -> String? {
        guard !ignored.isEmpty else { return nil }
        let items = ignored.map { name in "\(name) (\((unapplied[name] ?? formerUnapplied[name])?.reason ?? "imgproxy has no such variable"))" }
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

    /// How one variable is read: from its name (which its errors give), its value and the
    /// whole environment, into the configuration.
    struct Variable: Sendable {
        let apply: @Sendable (_ name: String, _ value: String, _ environment: [String: String], inout ServerConfig) throws(ServerConfigError) -> Void
    }

    /// Every understood variable by name: those the settings name (``ServerSetting/imgproxyNames``),
    /// read as they say, and those read elsewhere.
    private static let variables: [String: Variable] = {
        var table: [String: Variable] = [:]
        for setting in ServerSetting.allCases {
            for imgproxyName in setting.imgproxyNames {
                let name = imgproxyName.name
                switch imgproxyName.reading {
                case .same:
                    table[name] = Variable { name, value, _, config throws(ServerConfigError) in
                        try ImgproxyEnvironment.setting(setting, setting.isList ? SettingText.list(value) : [value], named: name, &config)
                    }
                case .zeroKeepsDefault:
                    // imgproxy's 0 means "no limit": WebImage keeps its bounded default.
                    table[name] = Variable { name, value, _, config throws(ServerConfigError) in
                        guard Int(value.trimmingCharacters(in: .whitespaces)) != 0 else { return }
                        try ImgproxyEnvironment.setting(setting, [value], named: name, &config)
                    }
                case .own:
                    table[name] = ownReaders[name]
                }
            }
        }
        for name in readElsewhere.keys {
            table[name] = Variable { _, _, _, _ in }
        }
        return table
    }()

    /// The variables read by `webimage serve` with the OTEL_* variables
    /// (TelemetryConfiguration), not into a setting, with what they do.
    public static let readElsewhere: [String: String] = [
        "IMGPROXY_OPEN_TELEMETRY_ENABLE":
            "turns on traces; needs `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf` (or `http/json`), since imgproxy's default is gRPC",
        "IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS": "with `IMGPROXY_OPEN_TELEMETRY_ENABLE`, metrics by OTLP too",
    ].merging(formerReadElsewhere) { own, _ in own }

    /// The variables of imgproxy's earlier versions among ``readElsewhere``: imgproxy v3's
    /// names of the standard OpenTelemetry variables (``TelemetryConfiguration/standardVariables(fromImgproxyV3:)``).
    public static let formerReadElsewhere: [String: String] = [
        "IMGPROXY_OPEN_TELEMETRY_ENDPOINT": "imgproxy v3's: `host:port` of the collector, which turns exporting on (`OTEL_EXPORTER_OTLP_ENDPOINT`)",
        "IMGPROXY_OPEN_TELEMETRY_PROTOCOL": "imgproxy v3's: `grpc` (its default), `http` or `https` (`OTEL_EXPORTER_OTLP_PROTOCOL`)",
        "IMGPROXY_OPEN_TELEMETRY_GRPC_INSECURE": "imgproxy v3's: gRPC without TLS (`http://` in `OTEL_EXPORTER_OTLP_ENDPOINT`)",
        "IMGPROXY_OPEN_TELEMETRY_SERVICE_NAME": "imgproxy v3's `OTEL_SERVICE_NAME`",
        "IMGPROXY_OPEN_TELEMETRY_PROPAGATORS": "imgproxy v3's `OTEL_PROPAGATORS`",
        "IMGPROXY_OPEN_TELEMETRY_CONNECTION_TIMEOUT": "imgproxy v3's export timeout in seconds (`OTEL_EXPORTER_OTLP_TIMEOUT`)",
    ]

    /// The readers of the variables a setting names with ``ServerSetting/ImgproxyName/Reading/own``.
    static let ownReaders: [String: Variable] = [
        "IMGPROXY_BIND": Variable { name, value, _, config throws(ServerConfigError) in try bind(value, named: name, &config) },
        "IMGPROXY_FORMAT_QUALITY": Variable { name, value, _, config throws(ServerConfigError) in
            // SVG, served as SVG and never encoded, has no quality to set.
            let items = SettingText.list(value).filter { item in
                let format = item.split(separator: "=").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                return format != "svg"
            }
            try ImgproxyEnvironment.setting(.formatQuality, items, named: name, &config)
        },
        "IMGPROXY_ALLOWED_SOURCES": Variable { name, value, _, config throws(ServerConfigError) in
            let prefixes = SettingText.list(value).map(hostPrefixWithSlash)
            try ImgproxyEnvironment.setting(.allowedSource, prefixes, named: name, &config)
        },
        // Read together with IMGPROXY_PRESETS_PATH after the table (presetItems).
        presetsName: Variable { _, _, _, _ in },
        presetsSeparatorName: Variable { _, _, _, _ in },
        presetsPathName: Variable { _, _, _, _ in },
        "IMGPROXY_READ_TIMEOUT": Variable { name, value, environment, config throws(ServerConfigError) in
            // imgproxy's former name: the current one wins when both are set.
            guard environment["IMGPROXY_READ_REQUEST_TIMEOUT"]?.trimmingCharacters(in: .whitespaces).isEmpty ?? true else { return }
            try ImgproxyEnvironment.setting(.readRequestTimeout, [value], named: name, &config)
        },
        "IMGPROXY_USER_AGENT": Variable { name, value, _, config throws(ServerConfigError) in
            let agent = value.replacing("%current_version", with: WebImageVersion.current)
            try ImgproxyEnvironment.setting(.userAgent, [agent], named: name, &config)
        },
        "IMGPROXY_LOG_LEVEL": Variable { _, _, environment, config throws(ServerConfigError) in
            if let level = logLevel(environment) { config.operations.logLevel = level }
        },
        "IMGPROXY_LOG_FORMAT": Variable { _, _, environment, config throws(ServerConfigError) in
            if let format = logFormat(environment) { config.operations.logFormat = format }
        },
    ]

    /// Applies `values` to `setting`, naming `name` in the error.
    private static func setting(_ setting: ServerSetting, _ values: [String], named name: String, _ config: inout ServerConfig) throws(ServerConfigError) {
        do {
            try setting.apply(values, to: &config)
        } catch {
            throw ServerConfigError(error.message.replacing(setting.readingPrefix, with: name))
        }
    }

    /// `IMGPROXY_BIND`, read from the variable `name`: `host:port`, `:port` (every interface),
    /// `[v6]:port`.
    private static func bind(_ value: String, named name: String, _ config: inout ServerConfig) throws(ServerConfigError) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ServerConfigError("\(name): '\(value)' is not host:port, e.g. :8080 or 127.0.0.1:8080")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        config.listen.host = host.isEmpty ? "0.0.0.0" : host
        config.listen.port = port
    }

    /// `https://example.com` → `https://example.com/`: a prefix naming only a host stops at it.
    private static func hostPrefixWithSlash(_ prefix: String) -> String {
        guard let schemeEnd = prefix.range(of: "://") else { return prefix }
        return prefix[schemeEnd.upperBound...].contains("/") ? prefix : prefix + "/"
    }

    // The three variables of the presets are read together, after the others.
    /// The presets, `name=options` each, split by ``presetsSeparatorName``.
    static let presetsName = "IMGPROXY_PRESETS"
    /// What splits ``presetsName`` (default `,`).
    static let presetsSeparatorName = "IMGPROXY_PRESETS_SEPARATOR"
    /// A file of presets, one a line.
    static let presetsPathName = "IMGPROXY_PRESETS_PATH"

    /// `IMGPROXY_PRESETS` split by `IMGPROXY_PRESETS_SEPARATOR` (default `,`).
    private static func presetItems(_ environment: [String: String]) throws(ServerConfigError) -> [String] {
        guard let value = environment[presetsName], !value.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        let separator = environment[presetsSeparatorName].flatMap { $0.isEmpty ? nil : $0 } ?? ","
        return try presetDefinitions(value.components(separatedBy: separator), source: presetsName)
    }

    /// The presets in the file at `path`, one `name=options` a line.
    private static func presetFileItems(_ path: String) throws(ServerConfigError) -> [String] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ServerConfigError("\(presetsPathName): cannot read '\(path)': \(error.localizedDescription)")
        }
        return try presetDefinitions(text.components(separatedBy: "\n"), source: presetsPathName)
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
