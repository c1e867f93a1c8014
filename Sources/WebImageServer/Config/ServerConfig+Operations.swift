import Foundation
import WebImage

extension ServerConfig {
    /// Metrics and logs.
    public struct Operations: Sendable {
        /// `host:port` of a listener of its own for `/metrics` (imgproxy's
        /// `IMGPROXY_PROMETHEUS_BIND`; a port alone, `:9464`, listens on every address). `nil`:
        /// `/metrics` is on the proxy's port.
        public var prometheusBind: String?
        /// The prefix of the metrics' names in place of `webimage` (imgproxy's
        /// `IMGPROXY_PROMETHEUS_NAMESPACE`). `nil`: `webimage`.
        public var prometheusNamespace: String?
        /// ``prometheusBind`` read; `nil` when there is none, or it is not `host:port`.
        var prometheusListenAddress: ListenAddress? { prometheusBind.flatMap(ListenAddress.init) }
        /// The least important messages logged: `trace`, `debug`, `info`, `notice`, `warning`,
        /// `error` or `critical`. Default `info`.
        public var logLevel = "info"
        /// How log lines are written: `pretty`, `structured` (logfmt), `json` or `gcp`. Default `pretty`.
        public var logFormat = "pretty"

        /// The defaults.
        public init() {}
    }
}
