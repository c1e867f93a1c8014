import Logging
import WebImage

extension ProxyServer {
    /// Logs where the credentials of `s3://` sources come from, or that their requests go
    /// unsigned, once the sources are looked at (before the server listens). Only the
    /// access key ID is ever named, never a secret.
    /// - Throws: ``ServerConfigError`` when a credentials source is misconfigured, or a role
    ///   to assume has no credentials to be assumed with.
    func logS3Credentials() async throws(ServerConfigError) {
        guard let s3Configuration else { return }
        do throws(ImageError) {
            let line = try await Self.s3CredentialsLine(s3Configuration.credentialsProvider)
            logger.info("\(line)")
        } catch {
            throw ServerSetting.useS3.error("S3 credentials: \(error.description)")
        }
    }

    /// The start-up line naming where `provider`'s credentials come from.
    static func s3CredentialsLine(_ provider: (any AWSCredentialsProvider)?) async throws(ImageError) -> String {
        switch provider {
        case let chain as AWSCredentialsChain:
            if let source = try await chain.resolve() { return "s3:// sources: credentials from \(source)" }
            return "s3:// sources: requests go unsigned: \(chain.unsignedReason ?? "no credentials found")"
        case let role as AWSAssumeRoleCredentialsProvider:
            guard let chain = role.base as? AWSCredentialsChain else {
                return "s3:// sources: credentials from assume role \(role.roleARN)"
            }
            guard let base = try await chain.resolve() else {
                throw .credentialsUnavailable(
                    "assume role \(role.roleARN) needs credentials to sign STS AssumeRole with, and none were found: \(chain.unsignedReason ?? "")"
                )
            }
            let externalID = role.externalID == nil ? "" : " (with an external ID)"
            return "s3:// sources: credentials from assume role \(role.roleARN)\(externalID), signed with credentials from \(base)"
        case let fixed as AWSStaticCredentialsProvider:
            return "s3:// sources: credentials from \(fixed.source)"
        case nil:
            return "s3:// sources: requests go unsigned"
        case let other?:
            return "s3:// sources: credentials from \(type(of: other))"
        }
    }
}
