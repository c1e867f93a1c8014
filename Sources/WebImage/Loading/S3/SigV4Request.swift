/// What AWS Signature Version 4 signs of a request: method, path, query, the headers to
/// sign and the hash of the body.
public struct SigV4Request: Sendable {
    /// The HTTP method, e.g. `GET`.
    public var method: String
    /// The path as text, not percent-encoded (`/bucket/my photo.jpg`); it is encoded once,
    /// as S3 expects, `/` kept (``AWSURIEncoding``).
    public var path: String
    /// The query parameters as text, not percent-encoded, in any order.
    public var query: [(name: String, value: String)]
    /// The headers to sign, `host` among them; names in any case. A name given more than
    /// once is signed with its values joined by commas, in order.
    public var headers: [(name: String, value: String)]
    /// The lower-case hex SHA-256 of the body (``SigV4Signer/emptyPayloadHash`` for none),
    /// or `UNSIGNED-PAYLOAD`.
    public var payloadHash: String

    /// Creates a request to sign.
    public init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)], payloadHash: String = SigV4Signer.emptyPayloadHash
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.payloadHash = payloadHash
    }

    /// The path as it goes on the wire and into the canonical request: each byte but the
    /// unreserved ones and `/` percent-encoded; `/` when empty.
    public var encodedPath: String {
        path.isEmpty ? "/" : AWSURIEncoding.encode(path, keepingSlashes: true)
    }

    /// The query as it goes on the wire and into the canonical request: names and values
    /// percent-encoded, sorted by name, then by value.
    public var encodedQuery: String {
        query.map { (AWSURIEncoding.encode($0.name), AWSURIEncoding.encode($0.value)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }
}
