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

    /// The S3 settings of `s3://` sources, or `nil` when they are off (``useS3``): the
    /// endpoint of ``s3Endpoint``, else the one the AWS variables give; the region of
    /// ``s3Region``, else the one the AWS variables or the profile name, else the profile's
    /// default; the credentials of the AWS SDKs' default chain (``AWSCredentialsChain``), or
    /// of the role ``s3AssumeRoleARN`` assumed with them.
    /// - Parameter profile: whose default region applies when neither ``s3Region`` nor the
    ///   AWS variables and files name one.
    /// - Throws: ``ServerConfigError`` when a shared AWS file cannot be used or an endpoint
    ///   is not a URL.
    public func s3Configuration(profile: ServerProfile) throws(ServerConfigError) -> S3Configuration? {
        guard useS3 else { return nil }
        var configuration: S3Configuration
        let configuredRegion: String?
        do throws(ImageError) {
            configuration = try S3Configuration.fromEnvironment(s3Environment, homeDirectory: s3HomeDirectory)
            configuredRegion = try S3Configuration.configuredRegion(s3Environment, homeDirectory: s3HomeDirectory)
        } catch {
            throw ServerSetting.useS3.error("S3 credentials: \(error.description)")
        }
        if let s3Region, !s3Region.isEmpty {
            configuration.region = s3Region
        } else if profile == .imgproxy, configuredRegion == nil {
            configuration.region = ServerProfile.imgproxyS3Region
        }
        if let s3Endpoint, !s3Endpoint.isEmpty { configuration.endpoint = s3Endpoint }
        configuration.usesPathStyle = s3EndpointUsePathStyle
        if let s3AssumeRoleARN, !s3AssumeRoleARN.isEmpty, let base = configuration.credentialsProvider {
            do throws(ImageError) {
                let stsEndpoint = try AWSServiceEndpoints(environment: s3Environment).sts(region: configuration.region)
                configuration.credentialsProvider = try AWSAssumeRoleCredentialsProvider(
                    roleARN: s3AssumeRoleARN, externalID: s3AssumeRoleExternalID, base: base, region: configuration.region, stsEndpoint: stsEndpoint
                )
            } catch {
                throw ServerSetting.s3AssumeRoleARN.error(error.description)
            }
        }
        return configuration
    }

    /// How source URLs are rewritten: ``urlReplacements``, then ``baseURL``.
    public var sourceRewrite: SourceURLRewrite {
        SourceURLRewrite(replacements: urlReplacements, baseURL: baseURL)
    }
}
