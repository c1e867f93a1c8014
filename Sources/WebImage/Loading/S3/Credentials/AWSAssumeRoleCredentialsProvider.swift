import Foundation

/// The credentials of an IAM role assumed with other credentials: STS `AssumeRole`, signed
/// with those of `base` (imgproxy's `IMGPROXY_S3_ASSUME_ROLE_ARN` and
/// `IMGPROXY_S3_ASSUME_ROLE_EXTERNAL_ID`), held until a few minutes before they expire.
///
///     let role = try AWSAssumeRoleCredentialsProvider(
///         roleARN: "arn:aws:iam::123456789012:role/images", base: AWSCredentialsChain(), region: "eu-west-1")
public final class AWSAssumeRoleCredentialsProvider: AWSCredentialsProvider {
    /// The role assumed.
    public let roleARN: String
    /// The external ID the role's trust policy asks for, if any.
    public let externalID: String?
    /// The session name STS records.
    public let sessionName: String
    /// The STS endpoint asked.
    public let stsEndpoint: URL
    /// The credentials `AssumeRole` is signed with.
    public let base: any AWSCredentialsProvider
    private let sts: AWSSecurityTokenService
    private let cache: AWSCredentialsCache

    /// Creates a provider.
    /// - Parameters:
    ///   - roleARN: the role to assume.
    ///   - externalID: the external ID the role's trust policy asks for.
    ///   - sessionName: the session name; default `webimage-<seconds since 1970>`.
    ///   - base: the credentials `AssumeRole` is signed with, e.g. the default chain.
    ///   - region: the region whose STS endpoint is asked and signed for; `nil`: the global one.
    ///   - stsEndpoint: the STS endpoint; `nil`: that of `region`.
    public convenience init(
        roleARN: String, externalID: String? = nil, sessionName: String? = nil, base: any AWSCredentialsProvider, region: String? = nil,
        stsEndpoint: URL? = nil
    ) throws(ImageError) {
        self.init(
            roleARN: roleARN, externalID: externalID, sessionName: sessionName, base: base,
            sts: try AWSSecurityTokenService(endpoint: stsEndpoint, region: region)
        )
    }

    init(
        roleARN: String, externalID: String?, sessionName: String?, base: any AWSCredentialsProvider, sts: AWSSecurityTokenService,
        cache: AWSCredentialsCache = AWSCredentialsCache()
    ) {
        self.roleARN = roleARN
        self.externalID = externalID.flatMap { $0.isEmpty ? nil : $0 }
        self.sessionName = sessionName ?? Self.defaultSessionName()
        self.stsEndpoint = sts.endpoint
        self.base = base
        self.sts = sts
        self.cache = cache
    }

    /// `webimage-<seconds since 1970>`: a session name STS takes (2 to 64 characters).
    static func defaultSessionName() -> String {
        "webimage-\(Int(Date().timeIntervalSince1970))"
    }

    /// The role's credentials, fetched again a few minutes before they expire.
    public func credentials() async throws(ImageError) -> AWSCredentials? {
        try await cache.credentials { () async throws(ImageError) -> AWSCredentials in try await self.fetch() }
    }

    /// Asks STS for the role's credentials, signed with the base's.
    private func fetch() async throws(ImageError) -> AWSCredentials {
        let signing: AWSCredentials?
        do {
            signing = try await base.credentials()
        } catch {
            throw .credentialsUnavailable("assume role \(roleARN): the credentials to sign AssumeRole with: \(error.credentialsReason)")
        }
        guard let signing else {
            throw .credentialsUnavailable(
                "assume role \(roleARN): no credentials to sign AssumeRole with (none in the environment, the shared files, a web identity token, "
                    + "the container or the instance metadata endpoint); give some, e.g. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
            )
        }
        do {
            return try await sts.assumeRole(roleARN: roleARN, sessionName: sessionName, externalID: externalID, credentials: signing)
        } catch {
            throw .credentialsUnavailable("assume role \(roleARN): \(error.credentialsReason)")
        }
    }
}
