import Foundation
import WebImage

/// The downloader the source settings make: its limits, proxies and TLS.
extension ServerConfig.Sources {
    /// Takes ``httpProxy``, ``httpsProxy`` and ``noProxy`` from the standard variables
    /// (`http_proxy` / `HTTP_PROXY`, `https_proxy` / `HTTPS_PROXY`, `no_proxy` / `NO_PROXY`,
    /// the lower-case name first), as imgproxy and curl read them. Settings made after this
    /// (`WEBIMAGE_PROXY`, `--proxy`) win.
    public mutating func readStandardProxyVariables(_ environment: [String: String]) {
        func value(_ name: String) -> String? {
            [name.lowercased(), name.uppercased()].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        if let http = value("http_proxy") { httpProxy = http }
        if let https = value("https_proxy") { httpsProxy = https }
        if let noProxy = value("no_proxy") { self.noProxy = noProxy }
    }

    /// The proxies sources are fetched through, or `nil` when none is set.
    /// - Throws: ``ServerConfigError`` naming a proxy URL that cannot be used.
    public func sourceProxy() throws(ServerConfigError) -> DownloaderProxy? {
        func endpoint(_ text: String?, _ name: String) throws(ServerConfigError) -> DownloaderProxy.Endpoint? {
            guard let text, !text.isEmpty else { return nil }
            do {
                return try DownloaderProxy.Endpoint(url: text)
            } catch {
                throw ServerConfigError("\(error.description) (\(ServerSetting.proxy.names), \(name))")
            }
        }
        let http = try endpoint(httpProxy, "HTTP_PROXY")
        let https = try endpoint(httpsProxy, "HTTPS_PROXY")
        guard http != nil || https != nil else { return nil }
        return DownloaderProxy(
            httpProxy: http, httpsProxy: https, noProxy: NoProxyList(noProxy ?? ""), trustsProxyAddress: trustProxyAddress
        )
    }

    /// The TLS settings of source connections (CA bundle, client certificate), or `nil` when none is set.
    /// - Throws: ``ServerConfigError`` naming a file that cannot be read.
    public func sourceTLS() throws(ServerConfigError) -> DownloaderTLS? {
        guard caFile != nil || clientCertificateFile != nil || clientKeyFile != nil else { return nil }
        do {
            return try DownloaderTLS(caFile: caFile, clientCertificateFile: clientCertificateFile, clientKeyFile: clientKeyFile)
        } catch {
            throw ServerConfigError("\(error.description) (\([ServerSetting.caFile, .clientCert, .clientKey].map(\.description).joined(separator: ", ")))")
        }
    }

    /// The downloader's settings: the timeouts, the limits on downloads at once and on
    /// redirects, the retries, the `User-Agent`, the proxies and TLS.
    /// - Parameter maxBodySize: the largest source download (``ServerConfig/Limits/maxSourceBytes``).
    /// - Throws: ``ServerConfigError`` naming a proxy or a TLS file that cannot be used.
    public func downloaderConfig(maxBodySize: Int) throws(ServerConfigError) -> DownloaderConfig {
        var config = DownloaderConfig()
        config.maxBodySize = maxBodySize
        config.totalTimeout = downloadTimeout
        config.idleTimeout = downloadTimeout
        config.connectTimeout = min(downloadTimeout, .seconds(10))
        config.keepAliveTimeout = sourceKeepAliveTimeout
        config.maxConcurrentDownloads = maxDownloads
        config.maxConcurrentDownloadsPerHost = maxDownloadsPerHost
        if maxDownloadStartsPerSecond > 0 {
            config.rateLimit = DownloadRateLimit(startsPerSecond: Double(maxDownloadStartsPerSecond), burst: maxDownloadStartsPerSecond)
        }
        config.maxRedirects = maxRedirects
        config.retryPolicy = downloadRetries > 0 ? RetryPolicy(maxRetries: downloadRetries) : .never
        config.headers.replaceOrAdd(name: "User-Agent", value: userAgent ?? "\(WebImageServer.serverHeader) (image proxy)")
        config.proxy = try sourceProxy()
        config.tls = try sourceTLS()
        return config
    }
}
