import Foundation

/// The keys an AWS request is signed with: an access key ID, its secret, and for temporary
/// credentials a session token and the time they expire.
public struct AWSCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The access key ID (`AKIA…`, or `ASIA…` for temporary credentials).
    public var accessKeyID: String
    /// The secret access key; never printed (see ``description``).
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `X-Amz-Security-Token`.
    public var sessionToken: String?
    /// When temporary credentials stop working; `nil` for long-term keys.
    public var expiration: Date?

    /// Creates credentials.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// The credentials of the standard variables `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`
    /// and `AWS_SESSION_TOKEN`, or `nil` when the key ID or the secret is unset or empty.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> AWSCredentials? {
        let variables = AWSEnvironment(environment)
        guard let keyID = variables["AWS_ACCESS_KEY_ID"], let secret = variables["AWS_SECRET_ACCESS_KEY"] else { return nil }
        return AWSCredentials(accessKeyID: keyID, secretAccessKey: secret, sessionToken: variables["AWS_SESSION_TOKEN"])
    }

    /// The access key ID only: the secret and the token stay out of logs.
    public var description: String { "AWSCredentials(accessKeyID: \(accessKeyID))" }
}
