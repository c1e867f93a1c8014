import Foundation
import WebImage

/// What the source settings make besides the downloader: the loaders of `local://` and
/// `s3://` sources and the rewrite of source URLs.
extension ServerConfig.Sources {
    /// The loader of `local://` sources, or `nil` when no root is configured.
    /// - Parameter maxFileSize: the largest file read (``ServerConfig/Limits/maxSourceBytes``).
    /// - Throws: ``ServerConfigError`` when the root is not an existing directory.
    public func localFiles(maxFileSize: Int) throws(ServerConfigError) -> RootedFileLoader? {
        guard let localFilesystemRoot, !localFilesystemRoot.isEmpty else { return nil }
        do {
            return try RootedFileLoader(root: localFilesystemRoot, scheme: "local", maxFileSize: maxFileSize)
        } catch {
            throw ServerSetting.localFilesystemRoot.error("local file-system root: \(error.description)")
        }
    }

    /// The S3 settings of `s3://` sources, or `nil` when they are off (``useS3``).
    /// - Parameter profile: whose default region applies when neither ``s3Region`` nor the
    ///   AWS variables name one.
    public func s3Configuration(profile: ServerProfile) -> S3Configuration? {
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
}
