import Foundation
import WebImage

/// The settings of ``SettingSection/operations``.
extension ServerSetting {
    /// The settings of ``SettingSection/operations``, in the order the help lists them.
    static let operationSettings: [ServerSetting] = [
        prometheusBind, prometheusNamespace, logLevel, logFormat, imgproxyDefaults,
    ]

    /// `--prometheus-bind`: a listener of its own for `/metrics` (`:9464` listens on every address); the proxy's port then has no `/metrics`.
    public static let prometheusBind = ServerSetting(
        "prometheusBind", .operations, kind: .custom, placeholder: "HOST:PORT",
        imgproxy: [same("IMGPROXY_PROMETHEUS_BIND")],
        default: "none: `/metrics` on the proxy's port",
        help: "a listener of its own for `/metrics` (`:9464` listens on every address); the proxy's port then has no `/metrics`",
        check: { setting, config throws(ServerConfigError) in
            if let bind = config.operations.prometheusBind, config.operations.prometheusListenAddress == nil {
                throw setting.error("the metrics listener '\(bind)' is not host:port or :port, e.g. :9464")
            }
        }
    ) { setting, values, config throws(ServerConfigError) in
        let bind = (values.last ?? "").trimmingCharacters(in: .whitespaces)
        guard !bind.isEmpty else {
            config.operations.prometheusBind = nil
            return
        }
        guard ListenAddress(bind) != nil else { throw setting.invalid(values.last ?? "", "host:port or :port, e.g. :9464 or 127.0.0.1:9464") }
        config.operations.prometheusBind = bind
    }

    /// `--prometheus-namespace`: the prefix of every metric's name.
    public static let prometheusNamespace = ServerSetting(
        "prometheusNamespace", .operations, kind: .custom, placeholder: "NAME",
        imgproxy: [same("IMGPROXY_PROMETHEUS_NAMESPACE")],
        default: "`webimage`",
        help: "the prefix of every metric's name",
        check: { setting, config throws(ServerConfigError) in
            if let namespace = config.operations.prometheusNamespace, !PrometheusNames.isPrefix(namespace) {
                throw setting.error("the metrics namespace '\(namespace)' is not letters, digits and _, starting with a letter")
            }
        }
    ) { setting, values, config throws(ServerConfigError) in
        let namespace = (values.last ?? "").trimmingCharacters(in: .whitespaces)
        guard !namespace.isEmpty else {
            config.operations.prometheusNamespace = nil
            return
        }
        guard PrometheusNames.isPrefix(namespace) else {
            throw setting.invalid(values.last ?? "", "a Prometheus name: letters, digits and _, not starting with a digit")
        }
        config.operations.prometheusNamespace = namespace
    }

    /// `--log-level`: `trace`, `debug` (adds a line per answer), `info` (a line per request), `notice`, `warning`, `error`, `critical`.
    public static let logLevel = text(
        "logLevel", .operations, \.operations.logLevel, placeholder: "LEVEL",
        imgproxy: [own("IMGPROXY_LOG_LEVEL")],
        default: "`info`",
        help: "`trace`, `debug` (adds a line per answer), `info` (a line per request), `notice`, `warning`, `error`, `critical`"
    )

    /// `--log-format`: log lines as swift-log's text (`pretty`), logfmt (`structured`), one JSON object each (`json`), or JSON as Google Cloud Logging reads it (`gcp`).
    public static let logFormat = text(
        "logFormat", .operations, \.operations.logFormat, placeholder: "F",
        imgproxy: [own("IMGPROXY_LOG_FORMAT")],
        default: "`pretty`",
        help: "log lines as swift-log's text (`pretty`), logfmt (`structured`), one JSON object each (`json`), or JSON as Google Cloud Logging reads it (`gcp`)"
    )

    /// `--imgproxy-defaults`: start from imgproxy's defaults and answer with its status codes (imgproxy.md).
    public static let imgproxyDefaults = ServerSetting(
        "imgproxyDefaults", .operations, kind: .bool, placeholder: nil,
        default: "on when any `IMGPROXY_*` variable is set",
        help: "start from imgproxy's defaults and answer with its status codes ([imgproxy.md](imgproxy.md))"
    ) { _, _, _ throws(ServerConfigError) in
        // The profile is chosen from it (ServerProfile.chosen) before any setting is
        // applied: there is nothing left to set.
    }
}
