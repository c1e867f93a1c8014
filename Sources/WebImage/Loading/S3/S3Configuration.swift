import Foundation

/// Where and how ``S3ImageLoader`` reaches S3 or an S3-compatible server (MinIO, Ceph,
/// Cloudflare R2, …): the endpoint, the region, the addressing style and the credentials.
public struct S3Configuration: Sendable {
    /// The server, e.g. `http://127.0.0.1:9000` or `https://s3.example.com`; a value
    /// without a scheme is taken as `http://` (as imgproxy's `IMGPROXY_S3_ENDPOINT`).
    /// `nil`: AWS itself, `https://s3.<region>.amazonaws.com`.
    public var endpoint: String?
    /// The region requests are signed for. Default `us-east-1`. A bucket that S3 says
    /// lives in another region is asked again there (see ``S3ImageLoader``).
    public var region: String
    /// With an ``endpoint``: address buckets in the path (`<endpoint>/<bucket>/<key>`,
    /// true, the default, as imgproxy's `IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE`) or as a
    /// subdomain of the endpoint's host (`<bucket>.<host>/<key>`, false). Without one,
    /// AWS's virtual-hosted style is used, and the path style for a bucket whose name
    /// cannot be a host label under TLS (dots, capitals, underscores).
    public var usesPathStyle: Bool
    /// What gives the keys requests are signed with, asked before each load; `nil`, or a
    /// provider answering `nil`: requests go unsigned, which only a public bucket answers.
    public var credentialsProvider: (any AWSCredentialsProvider)?

    /// The region used when none is configured.
    public static let defaultRegion = "us-east-1"

    /// Creates a configuration whose requests are signed with `credentials` (`nil`: unsigned).
    public init(
        endpoint: String? = nil, region: String = S3Configuration.defaultRegion, usesPathStyle: Bool = true,
        credentials: AWSCredentials? = nil
    ) {
        self.init(
            endpoint: endpoint, region: region, usesPathStyle: usesPathStyle,
            credentialsProvider: credentials.map { AWSStaticCredentialsProvider($0) }
        )
    }

    /// Creates a configuration whose requests are signed with the credentials of `credentialsProvider`.
    public init(
        endpoint: String? = nil, region: String = S3Configuration.defaultRegion, usesPathStyle: Bool = true,
        credentialsProvider: (any AWSCredentialsProvider)?
    ) {
        self.endpoint = endpoint
        self.region = region
        self.usesPathStyle = usesPathStyle
        self.credentialsProvider = credentialsProvider
    }

    /// The configuration the AWS SDKs would make of `environment` and the shared files:
    /// the credentials of the default chain (``AWSCredentialsChain``: the environment, the
    /// profile of the shared files, a web identity token, the container or the instance
    /// metadata endpoint); the region of `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the
    /// profile's `region` in the config file, else ``defaultRegion``; the endpoint of
    /// `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`, else AWS's own.
    /// - Parameters:
    ///   - environment: the variables; default the process's.
    ///   - homeDirectory: the directory holding `.aws/`; `nil`: `HOME` of `environment`.
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` when a shared file cannot be read
    ///   or parsed, or `AWS_PROFILE` names a profile that is in neither.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, homeDirectory: String? = nil
    ) throws(ImageError) -> S3Configuration {
        let chain = AWSCredentialsChain(environment: environment, homeDirectory: homeDirectory)
        let region = try configuredRegion(environment, homeDirectory: chain.homeDirectory) ?? defaultRegion
        return S3Configuration(endpoint: AWSServiceEndpoints(environment: environment).s3, region: region, credentialsProvider: chain)
    }

    /// The region `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the `region` of the profile
    /// `AWS_PROFILE` (default `default`) in the shared files names; `nil` when none does.
    /// - Parameters:
    ///   - environment: the variables.
    ///   - homeDirectory: the directory holding `.aws/`; `nil`: `HOME` of `environment`.
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` when a shared file cannot be read
    ///   or parsed, or `AWS_PROFILE` names a profile that is in neither.
    public static func configuredRegion(_ environment: [String: String], homeDirectory: String? = nil) throws(ImageError) -> String? {
        let variables = AWSEnvironment(environment)
        if let region = variables["AWS_REGION"] ?? variables["AWS_DEFAULT_REGION"] { return region }
        let profiles = try AWSSharedProfiles(environment: environment, homeDirectory: homeDirectory ?? variables["HOME"])
        if let missing = profiles.missingNamedProfile { throw missing }
        return profiles.region
    }

    /// The endpoint as a URL with a scheme, or `nil` for AWS's own.
    /// - Throws: ``ImageError/invalidURL(_:)`` when the endpoint is not an http(s) URL with a host.
    public func endpointURL() throws(ImageError) -> URL? {
        guard let endpoint = endpoint?.trimmingCharacters(in: .whitespaces), !endpoint.isEmpty else { return nil }
        let lowered = endpoint.lowercased()
        let text = lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? endpoint : "http://" + endpoint
        guard let url = URL(string: text), let host = url.host, !host.isEmpty else {
            throw .invalidURL("the S3 endpoint '\(endpoint)' is not a URL with a host, e.g. http://127.0.0.1:9000 or https://s3.example.com")
        }
        return url
    }

    /// The HTTP request for `location` in `region`: its URL and what SigV4 signs of it.
    func request(for location: S3ObjectLocation, region: String) throws(ImageError) -> (url: URL, signable: SigV4Request) {
        let scheme: String
        let host: String
        var port: Int?
        var basePath = ""
        let pathStyle: Bool
        if let endpoint = try endpointURL() {
            scheme = endpoint.scheme?.lowercased() ?? "http"
            let endpointHost = endpoint.host ?? ""
            host = endpointHost.contains(":") && !endpointHost.hasPrefix("[") ? "[\(endpointHost)]" : endpointHost
            port = endpoint.port
            basePath = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)?.path ?? ""
            while basePath.hasSuffix("/") { basePath.removeLast() }
            pathStyle = usesPathStyle
        } else {
            scheme = "https"
            host = "s3.\(region).amazonaws.com"
            pathStyle = !Self.isVirtualHostable(location.bucket)
        }
        // A bucket becomes a host name only when it is one by AWS's rules; in the path, a
        // name of the characters buckets were once allowed.
        guard pathStyle ? Self.isLegacyBucketName(location.bucket) : Self.isValidBucketName(location.bucket) else {
            throw .invalidURL(
                "\(location): '\(location.bucket.prefix(100))' is not a valid S3 bucket name: 3 to 63 lower-case letters, digits, "
                    + "hyphens and dots, starting and ending with a letter or digit, not an IP address"
            )
        }
        let requestHost = pathStyle ? host : "\(location.bucket).\(host)"
        let path = pathStyle ? "\(basePath)/\(location.bucket)/\(location.key)" : "\(basePath)/\(location.key)"
        if port == (scheme == "https" ? 443 : 80) { port = nil }
        let hostHeader = requestHost + (port.map { ":\($0)" } ?? "")
        let query = location.versionID.map { [(name: "versionId", value: $0)] } ?? []
        let signable = SigV4Request(method: "GET", path: path, query: query, headers: [("host", hostHeader)])
        let text = "\(scheme)://\(hostHeader)\(signable.encodedPath)" + (query.isEmpty ? "" : "?\(signable.encodedQuery)")
        guard let url = URL(string: text) else {
            throw .invalidURL("\(location): cannot make an S3 request URL of it (\(text.prefix(200)))")
        }
        return (url, signable)
    }

    /// Whether `bucket` follows AWS's rules for bucket names: 3 to 63 lower-case letters,
    /// digits, dots and hyphens; a letter or digit first and last; no two dots together; not
    /// an IPv4 address; none of the prefixes (`xn--`, `sthree-`, `amzn-s3-demo-`) and
    /// suffixes (`-s3alias`, `--ol-s3`, `.mrap`, `--x-s3`, `--table-s3`) AWS reserves.
    static func isValidBucketName(_ bucket: String) -> Bool {
        let bytes = Array(bucket.utf8)
        func isLetterOrDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard (3...63).contains(bytes.count), let first = bytes.first, let last = bytes.last, isLetterOrDigit(first), isLetterOrDigit(last),
              bytes.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
              !bucket.contains("..")
        else { return false }
        let parts = bucket.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) { return false }
        let reservedPrefixes = ["xn--", "sthree-", "amzn-s3-demo-"]
        let reservedSuffixes = ["-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"]
        return !reservedPrefixes.contains { bucket.hasPrefix($0) } && !reservedSuffixes.contains { bucket.hasSuffix($0) }
    }

    /// Whether `bucket` is of the characters older buckets (and S3-compatible servers) allow
    /// in a path: 1 to 255 letters, digits, dots, hyphens and underscores.
    static func isLegacyBucketName(_ bucket: String) -> Bool {
        (1...255).contains(bucket.utf8.count) && bucket.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_")
        }
    }

    /// Whether `bucket` can be the first label of a TLS host name: lower-case letters,
    /// digits and hyphens, 3 to 63 of them, no dots.
    static func isVirtualHostable(_ bucket: String) -> Bool {
        (3...63).contains(bucket.utf8.count) && bucket.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        } && !bucket.hasPrefix("-") && !bucket.hasSuffix("-")
    }
}
