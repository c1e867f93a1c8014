import Foundation

/// Where credentials come from, as a log names it: never a secret, at most an access key ID.
public indirect enum AWSCredentialsSource: Sendable, Hashable, CustomStringConvertible {
    /// Keys given in code.
    case fixed
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
    case environment(accessKeyID: String)
    /// The profile `name` of a shared credentials or config file.
    case profile(name: String, file: String, accessKeyID: String)
    /// STS `AssumeRoleWithWebIdentity` of `roleARN` with the token in `tokenFile`.
    case webIdentity(roleARN: String, tokenFile: String)
    /// The container credentials endpoint (ECS, EKS Pod Identity) at `endpoint`.
    case container(endpoint: String)
    /// The EC2 instance metadata service (IMDSv2) at `endpoint`.
    case instanceMetadata(endpoint: String)
    /// STS `AssumeRole` of `roleARN`, signed with the credentials of `base`.
    case assumeRole(roleARN: String, base: AWSCredentialsSource)

    /// E.g. `profile 'default' from /home/app/.aws/credentials (access key ID AKIA…)`.
    public var description: String {
        switch self {
        case .fixed:
            "credentials given in code"
        case .environment(let keyID):
            "the environment (AWS_ACCESS_KEY_ID \(keyID))"
        case .profile(let name, let file, let keyID):
            "profile '\(name)' from \(file) (access key ID \(keyID))"
        case .webIdentity(let roleARN, let tokenFile):
            "web identity: role \(roleARN) assumed with the token in \(tokenFile)"
        case .container(let endpoint):
            "the container credentials endpoint (ECS) \(endpoint)"
        case .instanceMetadata(let endpoint):
            "the EC2 instance metadata service (IMDSv2) at \(endpoint)"
        case .assumeRole(let roleARN, let base):
            "assume role \(roleARN), signed with credentials from \(base)"
        }
    }
}
