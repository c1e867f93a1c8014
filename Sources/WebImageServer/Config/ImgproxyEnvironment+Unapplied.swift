extension ImgproxyEnvironment {
    /// An `IMGPROXY_*` variable of imgproxy that WebImage does not apply, and why.
    public struct Unapplied: Sendable, Hashable {
        /// Why the variable is not applied, and what to use instead where there is something.
        public let reason: String
        /// Whether setting it stops start-up: a server that ran without it would not do what
        /// the deployment asks of it, or would lose a protection. A boolean set to false
        /// (its default) never stops start-up.
        public let stopsStartup: Bool
    }

    /// Variables of imgproxy's earlier versions, which its current code no longer reads,
    /// that WebImage does not apply either, and why.
    public static let formerUnapplied: [String: Unapplied] = [
        "IMGPROXY_MAX_SVG_CHECK_BYTES": Unapplied(
            reason: "imgproxy v3's bound on the bytes read to tell an SVG; WebImage tells formats by their first bytes", stopsStartup: false
        ),
        "IMGPROXY_DOWNLOAD_BUFFER_SIZE": Unapplied(
            reason: "imgproxy v3's download buffer pool; WebImage sizes a download's buffer from its Content-Length", stopsStartup: false
        ),
        "IMGPROXY_BUFFER_POOL_CALIBRATION_THRESHOLD": Unapplied(
            reason: "imgproxy v3's download buffer pool; WebImage sizes a download's buffer from its Content-Length", stopsStartup: false
        ),
    ]

    /// Every variable imgproxy's code reads that ``apply(_:to:)`` does not apply, by name,
    /// with the reason. Together with ``appliedNames`` it covers all of imgproxy's variables.
    public static let unapplied: [String: Unapplied] = {
        var table: [String: Unapplied] = [:]
        func ignored(_ reason: String, _ names: String...) {
            for name in names { table[name] = Unapplied(reason: reason, stopsStartup: false) }
        }
        func refused(_ reason: String, _ names: String...) {
            for name in names { table[name] = Unapplied(reason: reason, stopsStartup: true) }
        }

        // Server
        ignored("WebImage listens on TCP only", "IMGPROXY_NETWORK")
        ignored("SO_REUSEPORT is not set: run one process per port, or several behind a load balancer (deploy/)", "IMGPROXY_SO_REUSEPORT")
        ignored("WebImage has no deprecated settings", "IMGPROXY_FAIL_ON_DEPRECATION")
        ignored("a Go runtime setting; WebImage sets its allocator at start-up", "IMGPROXY_FREE_MEMORY_INTERVAL", "IMGPROXY_LOG_MEM_STATS")
        ignored("libvips' debugging aids are not exposed", "IMGPROXY_VIPS_CACHE_TRACE", "IMGPROXY_VIPS_LEAK_CHECK")
        ignored("a Go profiler; use perf on the process", "IMGPROXY_PPROF_BIND")
        refused(
            "WebImage reads its settings from the environment only: pass them as variables",
            "IMGPROXY_ENV_LOCAL_FILE_PATH", "IMGPROXY_ENV_AWS_SECRET_ID", "IMGPROXY_ENV_AWS_SECRET_REGION",
            "IMGPROXY_ENV_AWS_SECRET_VERSION_ID", "IMGPROXY_ENV_AWS_SECRET_VERSION_STAGE", "IMGPROXY_ENV_AWS_SSM_PARAMETERS_PATH",
            "IMGPROXY_ENV_AWS_SSM_PARAMETERS_REGION", "IMGPROXY_ENV_GCP_KEY", "IMGPROXY_ENV_GCP_SECRET_ID",
            "IMGPROXY_ENV_GCP_SECRET_PROJECT_ID", "IMGPROXY_ENV_GCP_SECRET_VERSION_ID"
        )

        // Formats and compression
        ignored("high dynamic range is not kept: images are written with 8 bits a channel", "IMGPROXY_PRESERVE_HDR")
        ignored("shrink-on-load is always used where it gives the same result", "IMGPROXY_DISABLE_SHRINK_ON_LOAD")
        ignored("libvips' own safety limits of the SVG, PNG and TIFF loaders stay on", "IMGPROXY_SVG_UNLIMITED", "IMGPROXY_PNG_UNLIMITED", "IMGPROXY_TIFF_UNLIMITED")

        // Responses and caching headers

        // Sources
        refused(
            "WebImage loads http(s), local://, s3:// and gs:// sources only",
            "IMGPROXY_USE_ABS", "IMGPROXY_USE_SWIFT"
        )
        ignored(
            "WebImage loads http(s), local://, s3:// and gs:// sources only",
            "IMGPROXY_ABS_NAME", "IMGPROXY_ABS_KEY", "IMGPROXY_ABS_ENDPOINT", "IMGPROXY_ABS_ALLOWED_BUCKETS", "IMGPROXY_ABS_DENIED_BUCKETS",
            "IMGPROXY_SWIFT_USERNAME", "IMGPROXY_SWIFT_API_KEY", "IMGPROXY_SWIFT_AUTH_URL", "IMGPROXY_SWIFT_AUTH_VERSION",
            "IMGPROXY_SWIFT_DOMAIN", "IMGPROXY_SWIFT_TENANT", "IMGPROXY_SWIFT_CONNECT_TIMEOUT_SECONDS", "IMGPROXY_SWIFT_TIMEOUT_SECONDS",
            "IMGPROXY_SWIFT_ALLOWED_BUCKETS", "IMGPROXY_SWIFT_DENIED_BUCKETS"
        )
        refused(
            "S3 access points and client-side decryption are not supported",
            "IMGPROXY_S3_ACCESS_POINTS", "IMGPROXY_S3_USE_DECRYPTION_CLIENT"
        )
        ignored("a source's query string is part of its URL; s3:// versions and gs:// generations follow a ?", "IMGPROXY_SOURCE_URL_QUERY_SEPARATOR")
        refused("WebImage always verifies sources' certificates; trust a private authority with --ca-file", "IMGPROXY_IGNORE_SSL_VERIFICATION")
        ignored(
            "cookies are never passed to sources",
            "IMGPROXY_COOKIE_PASSTHROUGH", "IMGPROXY_COOKIE_PASSTHROUGH_ALL", "IMGPROXY_COOKIE_BASE_URL"
        )

        // Metrics, tracing, error reports, logging
        ignored("logs go to standard error, not by OpenTelemetry", "IMGPROXY_OPEN_TELEMETRY_ENABLE_LOGS", "IMGPROXY_OPEN_TELEMETRY_LOGGER_NAME")
        ignored(
            "the OTLP exporter's TLS is set by the standard OTEL_EXPORTER_OTLP_CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY variables",
            "IMGPROXY_OPEN_TELEMETRY_SERVER_CERT", "IMGPROXY_OPEN_TELEMETRY_CLIENT_CERT", "IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY"
        )
        ignored(
            "trace IDs are random (W3C) and the request's traceparent is always continued",
            "IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR", "IMGPROXY_OPEN_TELEMETRY_PROPAGATE_EXTERNAL"
        )
        ignored(
            "this monitoring service is not supported: use /metrics or OpenTelemetry",
            "IMGPROXY_NEW_RELIC_KEY", "IMGPROXY_NEW_RELIC_APP_NAME", "IMGPROXY_NEW_RELIC_LABELS", "IMGPROXY_NEW_RELIC_PROPAGATE_EXTERNAL",
            "IMGPROXY_DATADOG_ENABLE", "IMGPROXY_DATADOG_ENABLE_ADDITIONAL_METRICS", "IMGPROXY_DATADOG_PROPAGATE_EXTERNAL",
            "IMGPROXY_CLOUD_WATCH_SERVICE_NAME", "IMGPROXY_CLOUD_WATCH_NAMESPACE", "IMGPROXY_CLOUD_WATCH_REGION"
        )
        ignored(
            "error reporting services are not supported: errors are in the log and counted in /metrics",
            "IMGPROXY_SENTRY_DSN", "IMGPROXY_SENTRY_ENVIRONMENT", "IMGPROXY_SENTRY_RELEASE",
            "IMGPROXY_AIRBRAKE_PROJECT_ID", "IMGPROXY_AIRBRAKE_PROJECT_KEY", "IMGPROXY_AIRBRAKE_ENVIRONMENT",
            "IMGPROXY_BUGSNAG_KEY", "IMGPROXY_BUGSNAG_STAGE", "IMGPROXY_HONEYBADGER_KEY", "IMGPROXY_HONEYBADGER_ENV",
            "IMGPROXY_REPORT_DOWNLOADING_ERRORS", "IMGPROXY_REPORT_IO_ERRORS"
        )
        ignored(
            "the log goes to standard error; send it on with the service manager (journald, Docker)",
            "IMGPROXY_SYSLOG_ENABLE", "IMGPROXY_SYSLOG_NETWORK", "IMGPROXY_SYSLOG_ADDRESS", "IMGPROXY_SYSLOG_TAG", "IMGPROXY_SYSLOG_LEVEL"
        )
        return table
    }()

    /// Whether `value` of a variable that ``Unapplied/stopsStartup`` asks for what imgproxy
    /// does by default, so that ignoring it changes nothing: a boolean set to false.
    static func isDefaultFalse(_ value: String) -> Bool {
        ServerSetting.parsedBoolean(value) == false
    }
}
