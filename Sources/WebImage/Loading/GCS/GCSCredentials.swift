/// How ``GCSImageLoader`` authenticates its requests to Cloud Storage.
public enum GCSCredentials: Sendable, CustomStringConvertible {
    /// A service account's JSON key: each request carries an OAuth 2.0 access token the key's
    /// token endpoint gives for a token signed with the key (RS256), kept until shortly
    /// before it expires. The requests use GCS's JSON API.
    case serviceAccount(GCSServiceAccountKey)
    /// An HMAC key of GCS's interoperability (XML) API, its access ID (`GOOG1…`) and secret
    /// as ``AWSCredentials/accessKeyID`` and ``AWSCredentials/secretAccessKey``: the XML API
    /// is S3-compatible, and each request is signed with AWS Signature Version 4 by an
    /// ``S3ImageLoader`` (``S3Configuration/googleCloudStorage(hmacKey:endpoint:)``).
    case hmac(AWSCredentials)

    /// Who the requests are made as: the service account's email or the HMAC key's access
    /// ID. Never a secret.
    public var description: String {
        switch self {
        case .serviceAccount(let key): "service account \(key.clientEmail)"
        case .hmac(let key): "HMAC key \(key.accessKeyID)"
        }
    }
}
