/// Supplies the credentials AWS requests are signed with, each time a request is signed.
///
/// ``S3ImageLoader`` asks its provider before every request, so a provider of temporary
/// credentials hands out fresh ones as the old expire. The providers of this module:
/// ``AWSStaticCredentialsProvider`` (fixed keys), ``AWSWebIdentityCredentialsProvider``,
/// ``AWSContainerCredentialsProvider``, ``AWSInstanceMetadataCredentialsProvider``,
/// ``AWSAssumeRoleCredentialsProvider`` and the default chain of all of them,
/// ``AWSCredentialsChain``.
public protocol AWSCredentialsProvider: Sendable {
    /// The credentials to sign a request with now, or `nil` when the provider has none and
    /// requests go unsigned (only the default chain, finding no source, answers `nil`).
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` naming the source that failed and why.
    func credentials() async throws(ImageError) -> AWSCredentials?
}

/// Fixed credentials: long-term keys, or temporary ones someone else renews.
public struct AWSStaticCredentialsProvider: AWSCredentialsProvider {
    /// The credentials handed out.
    public let fixedCredentials: AWSCredentials
    /// Where they come from, for logs.
    public let source: AWSCredentialsSource

    /// Creates a provider of `credentials`, which came from `source`.
    public init(_ credentials: AWSCredentials, source: AWSCredentialsSource = .fixed) {
        self.fixedCredentials = credentials
        self.source = source
    }

    /// ``fixedCredentials``.
    public func credentials() async throws(ImageError) -> AWSCredentials? { fixedCredentials }
}
