import Foundation
import WebImage

extension ServerConfig {
    /// Checks every setting, and that the server's parts can be made from them: the URL
    /// parser (signing keys, salts, the source key, presets), the local root and the
    /// downloader's settings. The message names the setting, where it is given, and what
    /// to change. ``ProxyServer`` runs the same checks as it builds those parts.
    public func validate() throws(ServerConfigError) {
        _ = try makeParts()
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
