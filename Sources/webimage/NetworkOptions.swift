import ArgumentParser
import Foundation
import WebImage

/// `--proxy`, `--no-proxy`, `--ca-file`, `--client-cert`, `--client-key`: how the commands
/// that download reach origins. Without `--proxy`, the standard `HTTP_PROXY`, `HTTPS_PROXY`
/// and `NO_PROXY` variables apply, as they do for curl.
struct NetworkOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "HTTP proxy for http and https URLs, e.g. http://user:pass@proxy:3128.",
        discussion: "Default: HTTP_PROXY / HTTPS_PROXY (or their lower-case names). An empty value goes direct.",
        valueName: "url"
    ))
    var proxy: String?

    @Option(help: ArgumentHelp(
        "Hosts reached without the proxy, comma-separated as curl's NO_PROXY (names match their subdomains; IPs, networks like 10.0.0.0/8, * for all).",
        valueName: "hosts"
    ))
    var noProxy: String?

    @Option(help: ArgumentHelp("PEM file of certificate authorities trusted besides the system's.", valueName: "file"))
    var caFile: String?

    @Option(help: ArgumentHelp("PEM client certificate for origins that require one (mutual TLS).", valueName: "file"))
    var clientCert: String?

    @Option(help: ArgumentHelp("PEM private key of --client-cert (default: in the --client-cert file).", valueName: "file"))
    var clientKey: String?

    /// The downloader configuration these options (and the proxy variables of `environment`) make.
    func downloaderConfig(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ValidationError) -> DownloaderConfig {
        var config = DownloaderConfig()
        do {
            if let proxy {
                config.proxy = proxy.isEmpty ? nil : DownloaderProxy(all: try DownloaderProxy.Endpoint(url: proxy))
            } else {
                config.proxy = try DownloaderProxy.fromEnvironment(environment)
            }
            if let noProxy { config.proxy?.noProxy = NoProxyList(noProxy) }
            if caFile != nil || clientCert != nil || clientKey != nil {
                config.tls = try DownloaderTLS(caFile: caFile, clientCertificateFile: clientCert, clientKeyFile: clientKey)
            }
        } catch {
            throw ValidationError(error.description)
        }
        return config
    }
}
