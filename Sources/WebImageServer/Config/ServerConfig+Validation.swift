import Foundation
import WebImage

extension ServerConfig {
    /// Checks every setting; the message names the setting, where it is given, and what to change.
    public func validate() throws(ServerConfigError) {
        // The ranges of the numeric settings, each with its setting's message.
        for setting in ServerSetting.allCases {
            try setting.check(self)
        }
        guard !host.isEmpty else { throw ServerSetting.bind.error("the bind address is empty") }
        _ = try signingKeys()
        for prefix in allowedSources {
            if let problem = SourceGuard.problem(withPrefix: prefix) { throw ServerSetting.allowedSource.error(problem) }
        }
        let timeouts = [
            (ServerSetting.downloadTimeout, downloadTimeout), (.requestTimeout, requestTimeout),
            (.readRequestTimeout, readRequestTimeout), (.writeResponseTimeout, writeResponseTimeout),
        ]
        for (setting, timeout) in timeouts where timeout <= .zero {
            throw setting.error("the \(setting.label) must be positive")
        }
        guard keepAliveTimeout >= .zero else {
            throw ServerSetting.keepAliveTimeout.error("the keep-alive timeout must be 0 (keep-alive off) or more")
        }
        try validateResponses()
        try validateURLs()
        try validateEncoding()
        guard !cacheDirectory.isEmpty else { throw ServerSetting.cacheDir.error("the cache directory is empty") }
        _ = try localFiles()
        _ = try sourceCipher()
        if useS3, let s3Endpoint, !s3Endpoint.isEmpty {
            let lowered = s3Endpoint.lowercased()
            let text = lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? s3Endpoint : "http://" + s3Endpoint
            guard let url = URL(string: text), url.host?.isEmpty == false else {
                throw ServerSetting.s3Endpoint.error("the S3 endpoint '\(s3Endpoint)' is not a URL with a host, e.g. http://127.0.0.1:9000")
            }
        }
        _ = try sourceProxy()
        _ = try sourceTLS()
    }

    /// The metrics listener, the headers' texts and the paths.
    private func validateResponses() throws(ServerConfigError) {
        if let prometheusBind, prometheusListenAddress == nil {
            throw ServerSetting.prometheusBind.error("the metrics listener '\(prometheusBind)' is not host:port or :port, e.g. :9464")
        }
        if let prometheusNamespace, !PrometheusNames.isPrefix(prometheusNamespace) {
            throw ServerSetting.prometheusNamespace.error("the metrics namespace '\(prometheusNamespace)' is not letters, digits and _, starting with a letter")
        }
        if let etagBuster, etagBuster.contains(where: { $0 == "\"" || $0.isWhitespace || !$0.isASCII }) {
            throw ServerSetting.etagBuster.error("the ETag buster '\(etagBuster)' may hold no quote, blank or non-ASCII character")
        }
        // A header value of visible ASCII: nothing that could end the header or start another.
        if let allowOrigin, allowOrigin.isEmpty || allowOrigin.unicodeScalars.contains(where: { !(0x21...0x7E).contains($0.value) }) {
            throw ServerSetting.allowOrigin.error("the allowed origin '\(allowOrigin)' is not an origin such as https://example.com or *")
        }
        if let secret, secret.isEmpty || secret.contains(where: { $0.isWhitespace || $0.isNewline }) {
            throw ServerSetting.secret.error("the secret must be a token without blanks")
        }
        if let healthCheckPath, healthCheckPath == "/" || !healthCheckPath.hasPrefix("/") || healthCheckPath.contains(where: { $0.isWhitespace || $0 == "*" || $0 == "?" }) {
            throw ServerSetting.healthCheckPath.error("the health check path '\(healthCheckPath)' is not a plain path such as /healthz")
        }
        if let pathPrefix, !pathPrefix.isEmpty, !pathPrefix.hasPrefix("/") || pathPrefix.hasSuffix("/") || pathPrefix.contains(where: { $0.isWhitespace || $0 == "*" || $0 == "?" }) {
            throw ServerSetting.pathPrefix.error("the path prefix '\(pathPrefix)' is not a path such as /images, without a '/' at the end")
        }
        if fallbackImageHTTPCode != 0, !(100...599).contains(fallbackImageHTTPCode) {
            throw ServerSetting.fallbackImageHTTPCode.error("fallback image status \(fallbackImageHTTPCode) is not 0 or an HTTP status 100…599")
        }
    }

    /// The options URLs may use, the separator of their arguments, and the presets.
    private func validateURLs() throws(ServerConfigError) {
        for name in allowedProcessingOptions where ProcessingOptionName.byName[Substring(name)] == nil {
            throw ServerSetting.allowedProcessingOption.error("allowed processing option '\(name)' is not a processing option, e.g. w, h, rs, q, f")
        }
        guard argumentsSeparator.isASCII, !argumentsSeparator.properties.isWhitespace, !"/%.@=".unicodeScalars.contains(argumentsSeparator) else {
            throw ServerSetting.argumentsSeparator.error(
                "the arguments separator '\(argumentsSeparator)' must be one ASCII character other than / % . @ = or a blank, e.g. : or ,"
            )
        }
        let parser = ProxyURLParser(
            keys: [], signatureSize: signatureSize, presets: presets, maxDimension: maxResultDimension,
            allowSecurityOptions: allowSecurityOptions, argumentsSeparator: argumentsSeparator
        )
        do {
            try parser.validatePresets()
        } catch {
            throw ServerSetting.preset.error("preset: \(error.message)")
        }
        if onlyPresets, presets.isEmpty {
            throw ServerSetting.preset.error("only-presets mode needs at least one preset")
        }
    }

    /// The formats, the qualities and the watermark.
    private func validateEncoding() throws(ServerConfigError) {
        for (setting, formats) in [(ServerSetting.bestFormats, bestFormats), (.preferredFormats, preferredFormats)] {
            guard !formats.isEmpty else { throw setting.error("\(setting.label) must name at least one format") }
            for format in formats where !format.isWritable {
                throw setting.error("\(setting.label) '\(format.rawValue)' cannot be written; use jpeg, png, gif, webp, avif, heic, tiff or jxl")
            }
        }
        for (format, quality) in formatQuality.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where !(1...100).contains(quality) {
            throw ServerSetting.formatQuality.error("format quality \(format.rawValue)=\(quality) is not in 1…100")
        }
        if let watermarkData, ConfiguredImage.decodeBase64(watermarkData) == nil {
            throw ServerSetting.watermarkData.error("the watermark data is not base64")
        }
        if let fallbackImageData, ConfiguredImage.decodeBase64(fallbackImageData) == nil {
            throw ServerSetting.fallbackImageData.error("the fallback image data is not base64")
        }
        for (setting, text) in [(ServerSetting.watermarkURL, watermarkURL), (.fallbackImageURL, fallbackImageURL)] {
            guard let text else { continue }
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw setting.error("the URL '\(text)' is not an http(s) URL")
            }
        }
        if let watermarkPath {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: watermarkPath, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw ServerSetting.watermarkPath.error("watermark file '\(watermarkPath)' does not exist or is a directory")
            }
        }
    }
}
