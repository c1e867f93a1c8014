import Foundation
import WebImage

extension ServerConfig {
    /// Checks every setting; the message names the setting, where it is given, and what to change.
    ///
    /// Each setting checks its own value first (``ServerSetting/bounds`` and its own check);
    /// then come the checks of settings read together, and the components the settings make.
    public func validate() throws(ServerConfigError) {
        for setting in ServerSetting.allCases {
            try setting.check(self)
        }
        _ = try signing.signingKeys()
        let parser = ProxyURLParser(
            keys: [], signatureSize: signing.signatureSize, presets: signing.presets, maxDimension: limits.maxResultDimension,
            allowSecurityOptions: signing.allowSecurityOptions, argumentsSeparator: signing.argumentsSeparator
        )
        do {
            try parser.validatePresets()
        } catch {
            throw ServerSetting.preset.error("preset: \(error.message)")
        }
        if signing.onlyPresets, signing.presets.isEmpty {
            throw ServerSetting.preset.error("only-presets mode needs at least one preset")
        }
        _ = try sources.localFiles(maxFileSize: limits.maxSourceBytes)
        _ = try signing.sourceCipher()
        if sources.useS3, let s3Endpoint = sources.s3Endpoint, !s3Endpoint.isEmpty {
            let lowered = s3Endpoint.lowercased()
            let text = lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? s3Endpoint : "http://" + s3Endpoint
            guard let url = URL(string: text), url.host?.isEmpty == false else {
                throw ServerSetting.s3Endpoint.error("the S3 endpoint '\(s3Endpoint)' is not a URL with a host, e.g. http://127.0.0.1:9000")
            }
        }
        _ = try sources.downloaderConfig(maxBodySize: limits.maxSourceBytes)
    }

    /// The processing options every URL starts from: the server-wide
    /// ``Encoding/keepCopyright``, ``Encoding/stripColorProfile``, ``Encoding/autoRotate``,
    /// ``Encoding/enforceThumbnail``, ``Encoding/skipProcessingFormats`` and
    /// ``Responses/returnAttachment``, set only where they differ from a URL's own default,
    /// so that the cache keys of URLs that do not depend on them stay the same.
    public var processingDefaults: ProcessingOptions {
        var options = ProcessingOptions()
        if encoding.keepCopyright { options.keepCopyright = true }
        if !encoding.stripColorProfile { options.stripColorProfile = false }
        if !encoding.autoRotate { options.autoRotate = false }
        if encoding.enforceThumbnail { options.enforceThumbnail = true }
        options.skipProcessing.formUnion(encoding.skipProcessingFormats)
        if responses.returnAttachment { options.returnAttachment = true }
        return options
    }

    /// The parser of proxy paths: the signing settings, the largest result side, the
    /// processing options every URL starts from and the rewrite of source URLs.
    /// - Throws: ``ServerConfigError`` when a key, a salt or the source key cannot be used.
    public func urlParser() throws(ServerConfigError) -> ProxyURLParser {
        ProxyURLParser(
            keys: try signing.signingKeys(), signatureSize: signing.signatureSize, presets: signing.presets,
            maxDimension: limits.maxResultDimension, allowSecurityOptions: signing.allowSecurityOptions,
            trustedSignatures: Set(signing.trustedSignatures), sourceCipher: try signing.sourceCipher(), onlyPresets: signing.onlyPresets,
            defaultOptions: processingDefaults, allowedOptions: Set(signing.allowedProcessingOptions),
            argumentsSeparator: signing.argumentsSeparator, sourceRewrite: sources.sourceRewrite,
            base64URLIncludesFilename: signing.base64URLIncludesFilename
        )
    }
}
