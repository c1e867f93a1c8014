import ArgumentParser
import Foundation
import Logging
import WebImage
import WebImageServer

/// `webimage serve`: the imgproxy-compatible image proxy.
struct ServeCommand: AsyncParsableCommand {
    /// The settings are listed only when help is asked for: building the list costs more
    /// than the rest of a start, and every command's configuration is read on each run.
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve resized images from remote sources (imgproxy URL format).",
        discussion: HelpRequest.isAsked ? discussion : ""
    )

    /// What `webimage serve --help` says below the usage line.
    static var discussion: String {
        """
            Every option can also be set with a WEBIMAGE_* environment variable (e.g. WEBIMAGE_PORT, \
            WEBIMAGE_KEYS, WEBIMAGE_ALLOWED_SOURCES as comma-separated lists), and imgproxy's IMGPROXY_* \
            variables are read with imgproxy's meaning (IMGPROXY_KEY, IMGPROXY_BIND, IMGPROXY_PRESETS…); \
            flags win over WEBIMAGE_*, which win over IMGPROXY_*. When any IMGPROXY_* variable is set \
            (or --imgproxy-defaults is given), every default and status code is imgproxy's; the start-up \
            log says which. IMGPROXY_* variables WebImage does not apply are listed with the reason in one \
            warning at start-up, and one it cannot run without (Azure Blob Storage or Swift sources, settings from a secrets manager…) stops it. \
            SIGTERM or SIGINT stops accepting connections, lets requests in flight finish, and exits 0. \
            Traces go by OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER=otlp is set, \
            metrics as well when OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or OTEL_METRICS_EXPORTER=otlp is set. \
            The process runs glibc malloc with \(AllocatorSettings.defaultArenas) arenas unless MALLOC_ARENA_MAX is set.

            \(SettingsPage.help)
            """
    }

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The settings listed above, e.g. --port 8080 --no-auto-webp.", valueName: "setting"))
    var settings: [String] = []

    func run() async throws {
        // Before any work starts: a request's task then continues on its connection's thread.
        WebImageServer.runConcurrencyOnEventLoops()
        let environment = ProcessInfo.processInfo.environment
        let settings = try ServeSettings(arguments: settings, environment: environment)
        let config = settings.config
        guard let format = LogFormat(name: config.operations.logFormat) else {
            throw ValidationError(ServerSetting.logFormat.error("'\(config.operations.logFormat)' is not a log format (pretty, structured, json, gcp)").message)
        }
        var logger = format == .pretty ? Logger(label: "webimage.serve") : Logger(label: "webimage.serve") { format.handler(label: $0) }
        guard let parsed = Logger.Level(rawValue: config.operations.logLevel.lowercased()) else {
            throw ValidationError(
                ServerSetting.logLevel.error("'\(config.operations.logLevel)' is not a log level (trace, debug, info, notice, warning, error, critical)").message
            )
        }
        logger.logLevel = parsed

        let telemetry: ProxyTelemetry
        do {
            // Before the server: its downloader and request spans use the tracer bootstrapped then.
            telemetry = try ProxyTelemetry.bootstrap(try TelemetryConfiguration(environment: environment), logger: logger)
        } catch {
            throw ValidationError(error.message)
        }
        let server: ProxyServer
        do {
            // The server checks the settings and builds its parts from them, each once.
            server = try ProxyServer(config: config, logger: logger, telemetry: telemetry)
        } catch {
            throw ValidationError(error.message)
        }
        logger.info("\(settings.profile.startupLine(imgproxyDefaults: settings.profileChoice, host: config.listen.host))")
        logger.info("\(config.caching.startupLine)")
        if let gcs = config.sources.gcsAuthenticationSummary {
            logger.info("\(gcs)")
        }
        if let warning = ImgproxyEnvironment.warning(ignored: settings.unknownImgproxySettings) {
            logger.warning("\(warning)")
        }
        logger.debug("allocator: \(AllocatorSettings.summary)")

        let host = config.listen.host
        let examplePath = config.examplePath()
        try await server.run(services: telemetry.services) { port in
            let example = "http://\(host):\(port)\(examplePath)"
            // Written straight to the file descriptor: a test or script reading the pipe sees it at once.
            FileHandle.standardOutput.write(Data("webimage serve: listening on http://\(host):\(port)\nexample: \(example)\n".utf8))
        }
    }
}
