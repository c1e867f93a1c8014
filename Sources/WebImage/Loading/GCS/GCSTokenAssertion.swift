import CryptoExtras
import Foundation

/// The JSON Web Token a service account sends its token endpoint to get an access token
/// (OAuth 2.0's JWT bearer grant, RFC 7523): the header `{"alg":"RS256","typ":"JWT","kid":…}`,
/// the claims `iss` (the account), `scope`, `aud` (the token endpoint), `iat` and `exp` (an
/// hour later, the longest Google accepts), signed with RSASSA-PKCS1-v1_5 over SHA-256.
struct GCSTokenAssertion: Sendable {
    /// The lifetime asked for the assertion.
    static let lifetime: TimeInterval = 3600
    /// The `grant_type` of the token request.
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// `<header>.<claims>.<signature>`, each base64url without padding.
    let token: String

    /// Signs the assertion of `key`, issued at `date` (whole seconds).
    /// - Throws: ``ImageError/invalidRequest(field:reason:)`` when the key cannot sign.
    init(key: GCSServiceAccountKey, issuedAt date: Date) throws(ImageError) {
        let issuedAt = Int64(date.timeIntervalSince1970.rounded(.down))
        let header = Header(kid: key.privateKeyID)
        let claims = Claims(
            iss: key.clientEmail, scope: key.scope, aud: key.tokenURI.absoluteString, iat: issuedAt, exp: issuedAt + Int64(Self.lifetime)
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let signingInput: String
        do {
            signingInput = try Self.base64URL(encoder.encode(header)) + "." + Self.base64URL(encoder.encode(claims))
        } catch {
            throw .invalidRequest(field: "the token request of the GCS service account \(key.clientEmail)", reason: "cannot be encoded: \(error)")
        }
        let signature: _RSA.Signing.RSASignature
        do {
            signature = try key.signingKey.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        } catch {
            throw .invalidRequest(field: "the private key of the GCS service account \(key.clientEmail)", reason: "cannot sign (\(error))")
        }
        token = signingInput + "." + Self.base64URL(signature.rawRepresentation)
    }

    /// The `application/x-www-form-urlencoded` body of the token request.
    var formBody: Data {
        // The assertion is base64url and dots: nothing in it needs escaping.
        Data("grant_type=\(AWSURIEncoding.encode(Self.grantType))&assertion=\(token)".utf8)
    }

    /// `data` in base64url (RFC 4648 §5) without `=` padding, as JWTs carry it.
    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    /// The JOSE header.
    private struct Header: Encodable {
        var alg = "RS256"
        var typ = "JWT"
        var kid: String?
    }

    /// The claims Google's token endpoint reads.
    private struct Claims: Encodable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int64
        var exp: Int64
    }
}
