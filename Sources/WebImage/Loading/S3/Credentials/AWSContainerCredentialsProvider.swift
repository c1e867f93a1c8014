import Foundation

/// The credentials of a container's task role, from the container credentials endpoint
/// that ECS (and EKS Pod Identity) run beside the container:
/// `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` (a path on `169.254.170.2`) or
/// `AWS_CONTAINER_CREDENTIALS_FULL_URI`, with the `Authorization` header of
/// `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (read at each refresh) or
/// `AWS_CONTAINER_AUTHORIZATION_TOKEN`. Held until a few minutes before they expire.
public final class AWSContainerCredentialsProvider: AWSCredentialsProvider {
    /// The endpoint asked.
    public let endpoint: URL
    /// The file holding the authorization token, if any; read at each refresh.
    public let authorizationTokenFile: String?
    /// The authorization token given directly (used when there is no token file).
    private let authorizationToken: String?
    /// How long a request may take.
    public let timeout: Duration
    private let http: AWSCredentialsHTTP
    private let cache: AWSCredentialsCache

    /// The host ECS serves relative URIs on.
    public static let ecsHost = "169.254.170.2"

    /// Creates a provider.
    /// - Parameters:
    ///   - endpoint: the credentials URL.
    ///   - authorizationToken: the `Authorization` header's value.
    ///   - authorizationTokenFile: a file holding it, read at each refresh; wins over `authorizationToken`.
    ///   - timeout: how long a request may take.
    public convenience init(endpoint: URL, authorizationToken: String? = nil, authorizationTokenFile: String? = nil, timeout: Duration = .seconds(5)) {
        self.init(
            endpoint: endpoint, authorizationToken: authorizationToken, authorizationTokenFile: authorizationTokenFile, timeout: timeout,
            http: AWSCredentialsHTTP(), cache: AWSCredentialsCache()
        )
    }

    init(
        endpoint: URL, authorizationToken: String?, authorizationTokenFile: String?, timeout: Duration, http: AWSCredentialsHTTP,
        cache: AWSCredentialsCache
    ) {
        self.endpoint = endpoint
        self.authorizationToken = authorizationToken
        self.authorizationTokenFile = authorizationTokenFile
        self.timeout = timeout
        self.http = http
        self.cache = cache
    }

    /// The provider the container variables of `environment` describe; `nil` when they describe none.
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` when the URI is not one to send a
    ///   token to: plain `http` only to loopback or the container endpoints' own addresses.
    static func fromEnvironment(_ environment: AWSEnvironment, timeout: Duration = .seconds(5)) throws(ImageError) -> AWSContainerCredentialsProvider? {
        let endpoint: URL
        if let relative = environment["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"] {
            let path = relative.hasPrefix("/") ? relative : "/" + relative
            guard let url = URL(string: "http://\(ecsHost)\(path)") else {
                throw .credentialsUnavailable("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI '\(relative.prefix(200))' is not a URL path")
            }
            endpoint = url
        } else if let full = environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"] {
            guard let url = URL(string: full), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = url.host, !host.isEmpty
            else {
                throw .credentialsUnavailable("AWS_CONTAINER_CREDENTIALS_FULL_URI '\(full.prefix(200))' is not an http(s) URL with a host")
            }
            guard scheme == "https" || isContainerEndpointHost(host) else {
                throw .credentialsUnavailable(
                    "AWS_CONTAINER_CREDENTIALS_FULL_URI \(AWSCredentialsHTTP.endpoint(of: url)): plain http goes only to a loopback address or the container "
                        + "endpoints' (169.254.170.2, 169.254.170.23, fd00:ec2::23); use https for any other host"
                )
            }
            endpoint = url
        } else {
            return nil
        }
        return AWSContainerCredentialsProvider(
            endpoint: endpoint, authorizationToken: environment["AWS_CONTAINER_AUTHORIZATION_TOKEN"],
            authorizationTokenFile: environment["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"], timeout: timeout, http: AWSCredentialsHTTP(),
            cache: AWSCredentialsCache()
        )
    }

    /// Whether `host` is loopback (`localhost`, 127/8, `::1`) or a container endpoint's address.
    static func isContainerEndpointHost(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.") || bare == ecsHost || bare == "169.254.170.23" || bare == "fd00:ec2::23"
    }

    /// Where the credentials come from.
    public var source: AWSCredentialsSource { .container(endpoint: AWSCredentialsHTTP.endpoint(of: endpoint)) }

    /// The role's credentials, fetched again a few minutes before they expire.
    public func credentials() async throws(ImageError) -> AWSCredentials? {
        try await cache.credentials { () async throws(ImageError) -> AWSCredentials in try await self.fetch() }
    }

    /// One `GET` of the endpoint with the authorization token.
    private func fetch() async throws(ImageError) -> AWSCredentials {
        let what = "the container credentials endpoint"
        var headers: [(String, String)] = [("Accept", "application/json")]
        if let token = try authorization() { headers.append(("Authorization", token)) }
        let response = try await http.send(.GET, endpoint, headers: headers, timeout: timeout, what: what)
        guard response.status == 200 else {
            let advice = [401, 403].contains(response.status)
                ? "check AWS_CONTAINER_AUTHORIZATION_TOKEN or AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"
                : "check AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or AWS_CONTAINER_CREDENTIALS_FULL_URI and the task role"
            throw .credentialsUnavailable("\(what) \(AWSCredentialsHTTP.endpoint(of: endpoint)) answered HTTP \(response.status): \(response.text.prefix(200)); \(advice)")
        }
        return try AWSCredentialsDocument.credentials(in: response.body, from: "\(what) \(AWSCredentialsHTTP.endpoint(of: endpoint))")
    }

    /// The `Authorization` header's value: the token file's contents, else the token.
    private func authorization() throws(ImageError) -> String? {
        guard let authorizationTokenFile else { return authorizationToken }
        guard let data = FileManager.default.contents(atPath: authorizationTokenFile) else {
            throw .credentialsUnavailable("the container authorization token file \(authorizationTokenFile) (AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE) does not exist or cannot be read")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw .credentialsUnavailable("the container authorization token file \(authorizationTokenFile) (AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE) is empty")
        }
        return token
    }
}
