import Foundation

/// The credentials of an EC2 instance's role, from the instance metadata service, IMDSv2:
/// a session token (`PUT /latest/api/token`), then the role's name
/// (`GET /latest/meta-data/iam/security-credentials/`), then its credentials, each `GET`
/// with the token. The endpoint is `http://169.254.169.254` unless
/// `AWS_EC2_METADATA_SERVICE_ENDPOINT` names another. Held until a few minutes before they
/// expire.
public final class AWSInstanceMetadataCredentialsProvider: AWSCredentialsProvider {
    /// The service's address.
    public let endpoint: URL
    /// How long each request may take: the service answers at once where there is one.
    public let timeout: Duration
    private let http: AWSCredentialsHTTP
    private let cache: AWSCredentialsCache

    /// The service's address on every instance.
    public static let defaultEndpoint = URL(string: "http://169.254.169.254")!
    /// The lifetime asked for the session token: six hours, the longest.
    static let tokenLifetimeSeconds = 21_600
    /// The path of the role credentials.
    static let credentialsPath = "/latest/meta-data/iam/security-credentials/"

    /// Creates a provider.
    /// - Parameters:
    ///   - endpoint: the service; default `http://169.254.169.254`.
    ///   - timeout: how long each request may take; default 1 s, as the AWS SDKs wait.
    public convenience init(endpoint: URL = defaultEndpoint, timeout: Duration = .seconds(1)) {
        self.init(endpoint: endpoint, timeout: timeout, http: AWSCredentialsHTTP(), cache: AWSCredentialsCache())
    }

    init(endpoint: URL, timeout: Duration, http: AWSCredentialsHTTP, cache: AWSCredentialsCache) {
        self.endpoint = endpoint
        self.timeout = timeout
        self.http = http
        self.cache = cache
    }

    /// Where the credentials come from.
    public var source: AWSCredentialsSource { .instanceMetadata(endpoint: AWSCredentialsHTTP.endpoint(of: endpoint)) }

    /// The role's credentials, fetched again a few minutes before they expire.
    public func credentials() async throws(ImageError) -> AWSCredentials? {
        try await cache.credentials { () async throws(ImageError) -> AWSCredentials in try await self.fetch() }
    }

    /// The URL of `path` on the service.
    private func url(_ path: String) -> URL {
        var base = endpoint.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path) ?? endpoint
    }

    /// Token, role name, credentials.
    private func fetch() async throws(ImageError) -> AWSCredentials {
        let what = "the EC2 instance metadata service"
        let where_ = AWSCredentialsHTTP.endpoint(of: endpoint)
        let tokenResponse = try await http.send(
            .PUT, url("/latest/api/token"), headers: [("X-aws-ec2-metadata-token-ttl-seconds", String(Self.tokenLifetimeSeconds))],
            timeout: timeout, what: what
        )
        guard tokenResponse.status == 200, !tokenResponse.text.isEmpty else {
            throw .credentialsUnavailable("\(what) at \(where_) answered the IMDSv2 token request with HTTP \(tokenResponse.status); check that the instance allows IMDSv2 (and a hop limit of 2 in a container)")
        }
        let token = tokenResponse.text.trimmingCharacters(in: .whitespacesAndNewlines)
        let roleResponse = try await http.send(.GET, url(Self.credentialsPath), headers: [("X-aws-ec2-metadata-token", token)], timeout: timeout, what: what)
        guard roleResponse.status == 200,
              let role = roleResponse.text.split(whereSeparator: \.isNewline).first.map({ $0.trimmingCharacters(in: .whitespaces) }), !role.isEmpty
        else {
            throw .credentialsUnavailable("\(what) at \(where_) names no IAM role (HTTP \(roleResponse.status)); attach an instance profile with a role to the instance")
        }
        let path = Self.credentialsPath + AWSURIEncoding.encode(role)
        let response = try await http.send(.GET, url(path), headers: [("X-aws-ec2-metadata-token", token)], timeout: timeout, what: what)
        guard response.status == 200 else {
            throw .credentialsUnavailable("\(what) at \(where_) answered HTTP \(response.status) for the credentials of the role \(role)")
        }
        return try AWSCredentialsDocument.credentials(in: response.body, from: "\(what) at \(where_) (role \(role))")
    }
}
