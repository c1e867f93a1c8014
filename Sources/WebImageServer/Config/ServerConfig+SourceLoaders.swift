import Foundation
import WebImage

/// What the source settings make besides the downloader: the loaders of `local://`, `s3://`
/// and `gs://` sources and the rewrite of source URLs.
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

    /// The GCS settings of `gs://` sources, or `nil` when they are off (``useGCS``): the
    /// endpoint, and the service account of ``gcsKey``, the HMAC key of ``gcsHMACAccessID``
    /// and ``gcsHMACSecret``, or no credentials.
    /// - Throws: ``ServerConfigError`` naming the setting when the key is not a service
    ///   account's JSON key, the endpoint not a URL, an HMAC key lacks its ID or secret, or
    ///   both kinds of credentials are given.
    public func gcsConfiguration() throws(ServerConfigError) -> GCSConfiguration? {
        guard useGCS else { return nil }
        var configuration = GCSConfiguration()
        if let gcsEndpoint, !gcsEndpoint.isEmpty {
            configuration.endpoint = gcsEndpoint
            do throws(ImageError) {
                _ = try configuration.serverURL()
            } catch {
                throw ServerSetting.gcsEndpoint.error(error.description)
            }
        }
        let accessID = gcsHMACAccessID.flatMap { $0.isEmpty ? nil : $0 }
        let secret = gcsHMACSecret.flatMap { $0.isEmpty ? nil : $0 }
        switch (accessID, secret) {
        case (nil, nil): break
        case let (accessID?, secret?): configuration.credentials = .hmac(AWSCredentials(accessKeyID: accessID, secretAccessKey: secret))
        case (nil, _?): throw ServerSetting.gcsHMACAccessID.error("an HMAC key's secret is given without its access ID")
        case (_?, nil): throw ServerSetting.gcsHMACSecret.error("the HMAC key \(accessID ?? "") is given without its secret")
        }
        if let gcsKey, !gcsKey.isEmpty {
            guard configuration.credentials == nil else {
                throw ServerSetting.gcsKey.error("give a service account's key or an HMAC key (\(ServerSetting.gcsHMACAccessID.names)), not both")
            }
            do throws(ImageError) {
                configuration.credentials = .serviceAccount(try GCSServiceAccountKey(json: Data(gcsKey.utf8)))
            } catch {
                throw ServerSetting.gcsKey.error(error.description)
            }
        }
        return configuration
    }

    /// How `gs://` requests are authenticated, for the start-up log, or `nil` when `gs://`
    /// sources are off or their settings cannot be used: the service account's email, the
    /// HMAC key's access ID, or none. Never a secret.
    public var gcsAuthenticationSummary: String? {
        guard let configuration = try? gcsConfiguration(), let server = try? configuration.serverURL() else { return nil }
        switch configuration.credentials {
        case .serviceAccount(let key)?:
            return "gs:// sources: from \(server.absoluteString) as the service account \(key.clientEmail), its tokens from \(key.tokenURI.absoluteString)"
        case .hmac(let key)?:
            return "gs:// sources: from \(server.absoluteString) through the XML API, signed with the HMAC key \(key.accessKeyID)"
        case nil:
            return "gs:// sources: from \(server.absoluteString), unauthenticated (public objects only; \(ServerSetting.gcsKey.names) gives a service account)"
        }
    }

    /// How source URLs are rewritten: ``urlReplacements``, then ``baseURL``.
    public var sourceRewrite: SourceURLRewrite {
        SourceURLRewrite(replacements: urlReplacements, baseURL: baseURL)
    }
}
