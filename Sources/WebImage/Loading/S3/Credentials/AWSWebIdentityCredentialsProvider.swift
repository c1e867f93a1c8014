import Foundation

/// The credentials of an IAM role assumed with a web identity token (an OIDC token, as
/// EKS's IAM roles for service accounts mount it): STS `AssumeRoleWithWebIdentity`, an
/// unsigned request, the variables `AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_ROLE_ARN` and
/// `AWS_ROLE_SESSION_NAME`.
///
/// The token file is read at each refresh (the token rotates); the role's credentials are
/// held until a few minutes before they expire.
public final class AWSWebIdentityCredentialsProvider: AWSCredentialsProvider {
    /// The role assumed.
    public let roleARN: String
    /// The file holding the token.
    public let tokenFile: String
    /// The session name STS records.
    public let sessionName: String
    /// The STS endpoint asked.
    public let stsEndpoint: URL
    private let sts: AWSSecurityTokenService
    private let cache: AWSCredentialsCache

    /// Creates a provider.
    /// - Parameters:
    ///   - roleARN: the role to assume, e.g. `arn:aws:iam::123456789012:role/images`.
    ///   - tokenFile: the file holding the web identity token.
    ///   - sessionName: the session name; default `webimage-<seconds since 1970>`.
    ///   - region: the region whose STS endpoint is asked; `nil`: the global endpoint.
    ///   - stsEndpoint: the STS endpoint; `nil`: that of `region`.
    public convenience init(
        roleARN: String, tokenFile: String, sessionName: String? = nil, region: String? = nil, stsEndpoint: URL? = nil
    ) throws(ImageError) {
        self.init(roleARN: roleARN, tokenFile: tokenFile, sessionName: sessionName, sts: try AWSSecurityTokenService(endpoint: stsEndpoint, region: region))
    }

    init(roleARN: String, tokenFile: String, sessionName: String?, sts: AWSSecurityTokenService, cache: AWSCredentialsCache = AWSCredentialsCache()) {
        self.roleARN = roleARN
        self.tokenFile = tokenFile
        self.sessionName = sessionName ?? AWSAssumeRoleCredentialsProvider.defaultSessionName()
        self.stsEndpoint = sts.endpoint
        self.sts = sts
        self.cache = cache
    }

    /// Where the credentials come from.
    public var source: AWSCredentialsSource { .webIdentity(roleARN: roleARN, tokenFile: tokenFile) }

    /// The role's credentials, fetched again a few minutes before they expire.
    public func credentials() async throws(ImageError) -> AWSCredentials? {
        try await cache.credentials { () async throws(ImageError) -> AWSCredentials in try await self.fetch() }
    }

    /// Reads the token and asks STS for the role's credentials.
    private func fetch() async throws(ImageError) -> AWSCredentials {
        let token = try Self.token(in: tokenFile)
        do {
            return try await sts.assumeRoleWithWebIdentity(roleARN: roleARN, sessionName: sessionName, token: token)
        } catch {
            throw .credentialsUnavailable("web identity (AWS_WEB_IDENTITY_TOKEN_FILE \(tokenFile)): \(error.credentialsReason)")
        }
    }

    /// The token in `file`, trimmed.
    static func token(in file: String) throws(ImageError) -> String {
        guard FileManager.default.fileExists(atPath: file) else {
            throw .credentialsUnavailable("web identity: the token file \(file) (AWS_WEB_IDENTITY_TOKEN_FILE) does not exist; mount the token there or correct the variable")
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw .credentialsUnavailable("web identity: the token file \(file) (AWS_WEB_IDENTITY_TOKEN_FILE) cannot be read; let this process read it")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw .credentialsUnavailable("web identity: the token file \(file) (AWS_WEB_IDENTITY_TOKEN_FILE) is empty")
        }
        return token
    }
}
