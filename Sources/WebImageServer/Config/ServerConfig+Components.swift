import Foundation
import WebImage

/// What the settings make: the signing keys, the loaders of `local://` and `s3://` sources,
/// the rewrite of source URLs, the processing options every URL starts from, the key of
/// `enc/` sources.
extension ServerConfig {
    /// The signing key pairs, checked: as many salts as keys, all hex.
    public func signingKeys() throws(ServerConfigError) -> [SigningKey] {
        guard keys.count == salts.count else {
            throw ServerConfigError(
                "\(keys.count) signing key(s) but \(salts.count) salt(s): give one salt per key (\(ServerSetting.key.names); \(ServerSetting.salt.names))"
            )
        }
        var pairs: [SigningKey] = []
        for (index, (key, salt)) in zip(keys, salts).enumerated() {
            do {
                pairs.append(try SigningKey(hexKey: key, hexSalt: salt))
            } catch {
                throw ServerConfigError("key/salt pair \(index + 1): \(error.message)")
            }
        }
        return pairs
    }

    /// The loader of `local://` sources, or `nil` when no root is configured.
    /// - Throws: ``ServerConfigError`` when the root is not an existing directory.
    public func localFiles() throws(ServerConfigError) -> RootedFileLoader? {
        guard let localFilesystemRoot, !localFilesystemRoot.isEmpty else { return nil }
        do {
            return try RootedFileLoader(root: localFilesystemRoot, scheme: "local", maxFileSize: maxSourceBytes)
        } catch {
            throw ServerSetting.localFilesystemRoot.error("local file-system root: \(error.description)")
        }
    }

    /// The S3 settings of `s3://` sources, or `nil` when they are off (``useS3``).
    public func s3Configuration() -> S3Configuration? {
        guard useS3 else { return nil }
        var configuration = S3Configuration.fromEnvironment(s3Environment)
        let regionFromEnvironment = ["AWS_REGION", "AWS_DEFAULT_REGION"].contains { !(s3Environment[$0] ?? "").isEmpty }
        if let s3Region, !s3Region.isEmpty {
            configuration.region = s3Region
        } else if profile == .imgproxy, !regionFromEnvironment {
            configuration.region = ServerProfile.imgproxyS3Region
        }
        configuration.endpoint = s3Endpoint
        configuration.usesPathStyle = s3EndpointUsePathStyle
        return configuration
    }

    /// How source URLs are rewritten: ``urlReplacements``, then ``baseURL``.
    public var sourceRewrite: SourceURLRewrite {
        SourceURLRewrite(replacements: urlReplacements, baseURL: baseURL)
    }

    /// The processing options every URL starts from: the server-wide ``keepCopyright``,
    /// ``stripColorProfile``, ``autoRotate``, ``enforceThumbnail`` and
    /// ``skipProcessingFormats``, set only where they differ from a URL's own default, so
    /// that the cache keys of URLs that do not depend on them stay the same.
    public var processingDefaults: ProcessingOptions {
        var options = ProcessingOptions()
        if keepCopyright { options.keepCopyright = true }
        if !stripColorProfile { options.stripColorProfile = false }
        if !autoRotate { options.autoRotate = false }
        if enforceThumbnail { options.enforceThumbnail = true }
        options.skipProcessing.formUnion(skipProcessingFormats)
        return options
    }

    /// The key of `enc/` sources, or `nil` when none is configured.
    /// - Throws: ``ServerConfigError`` when the key is not 16, 24 or 32 bytes of hex.
    public func sourceCipher() throws(ServerConfigError) -> SourceURLCipher? {
        guard let sourceURLEncryptionKey, !sourceURLEncryptionKey.isEmpty else { return nil }
        return try SourceURLCipher(hexKey: sourceURLEncryptionKey)
    }
}
