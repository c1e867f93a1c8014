import CryptoExtras
import Foundation

/// A Google Cloud service account's JSON key (`"type": "service_account"`), the file the
/// Cloud console downloads: the account's email, its RSA private key and the OAuth 2.0 token
/// endpoint that exchanges a token signed with that key for an access token.
public struct GCSServiceAccountKey: Sendable, CustomStringConvertible {
    /// The service account, e.g. `images@my-project.iam.gserviceaccount.com`.
    public var clientEmail: String
    /// The ID of the private key (`private_key_id`), sent as the signed token's `kid`; `nil`
    /// when the key names none.
    public var privateKeyID: String?
    /// The token endpoint (`token_uri`); Google's own, ``defaultTokenURI``, unless the key or
    /// the caller names another (a private deployment, a test).
    public var tokenURI: URL
    /// The OAuth 2.0 scope asked for; default ``readOnlyScope``.
    public var scope: String
    /// The key that signs the token requests; never printed (see ``description``).
    let signingKey: _RSA.Signing.PrivateKey

    /// Google's token endpoint.
    public static let defaultTokenURI = URL(string: "https://oauth2.googleapis.com/token")!
    /// Read access to Cloud Storage objects, the scope imgproxy asks for.
    public static let readOnlyScope = "https://www.googleapis.com/auth/devstorage.read_only"

    /// Creates a key from its parts.
    /// - Parameters:
    ///   - clientEmail: the service account's email.
    ///   - privateKeyPEM: its RSA private key, PEM (`-----BEGIN PRIVATE KEY-----`, PKCS #8, as
    ///     Google writes it, or PKCS #1), 2048 bits or more.
    ///   - privateKeyID: the key's ID, sent as the token's `kid`.
    ///   - tokenURI: the token endpoint.
    ///   - scope: the scope asked for.
    /// - Throws: ``ImageError/invalidRequest(field:reason:)`` when the PEM is not such a key.
    public init(
        clientEmail: String, privateKeyPEM: String, privateKeyID: String? = nil, tokenURI: URL = GCSServiceAccountKey.defaultTokenURI,
        scope: String = GCSServiceAccountKey.readOnlyScope
    ) throws(ImageError) {
        do {
            signingKey = try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw .invalidRequest(
                field: "the private key of the GCS service account \(clientEmail)",
                reason: "is not an RSA private key of 2048 bits or more in PEM (\(error)); use the private_key of the JSON key as the Cloud console wrote it"
            )
        }
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.tokenURI = tokenURI
        self.scope = scope
    }

    /// Reads a service account's JSON key: its `type` (which must be `service_account`),
    /// `client_email`, `private_key`, `private_key_id` and `token_uri` (Google's when absent).
    /// - Throws: ``ImageError/invalidRequest(field:reason:)`` naming what is missing or wrong.
    public init(json: some DataProtocol) throws(ImageError) {
        let field = "the GCS service-account key"
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: Data(json))
        } catch {
            throw .invalidRequest(
                field: field,
                reason: "is not a service account's JSON key (\(Self.reason(error))); give the whole JSON file the Cloud console downloads for the account"
            )
        }
        guard fields.type == "service_account" else {
            let type = fields.type.map { "'\($0)'" } ?? "no type"
            throw .invalidRequest(
                field: field, reason: "has \(type), not 'service_account'; give a service account's key (IAM > Service accounts > Keys > Add key > JSON)"
            )
        }
        guard let email = fields.clientEmail, !email.isEmpty else {
            throw .invalidRequest(field: field, reason: "has no client_email; give the whole JSON file of the service account's key")
        }
        guard let pem = fields.privateKey, !pem.isEmpty else {
            throw .invalidRequest(field: field, reason: "of \(email) has no private_key; give the whole JSON file of the service account's key")
        }
        var tokenURI = Self.defaultTokenURI
        if let text = fields.tokenURI, !text.isEmpty {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                throw .invalidRequest(field: field, reason: "of \(email) has the token_uri '\(text.prefix(200))', which is not an http(s) URL")
            }
            tokenURI = url
        }
        try self.init(clientEmail: email, privateKeyPEM: pem, privateKeyID: fields.privateKeyID, tokenURI: tokenURI)
    }

    /// The service account and its token endpoint; the private key stays out of logs.
    public var description: String {
        "GCSServiceAccountKey(clientEmail: \(clientEmail), tokenURI: \(tokenURI.absoluteString))"
    }

    /// The fields of the JSON key read here; the others (`project_id`, `client_id`, …) are not needed.
    private struct Fields: Decodable {
        var type: String?
        var clientEmail: String?
        var privateKey: String?
        var privateKeyID: String?
        var tokenURI: String?

        enum CodingKeys: String, CodingKey {
            case type
            case clientEmail = "client_email"
            case privateKey = "private_key"
            case privateKeyID = "private_key_id"
            case tokenURI = "token_uri"
        }
    }

    /// What the JSON decoder found wrong, in a few words.
    private static func reason(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .dataCorrupted(let context)?: "not JSON: \(context.debugDescription)"
        case .typeMismatch(_, let context)? where !context.codingPath.isEmpty:
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is not a string"
        default: "not a JSON object"
        }
    }
}
