import CryptoExtras
import Foundation

/// A Google Cloud service account made up for a test: an RSA key generated here, the JSON
/// key file the Cloud console would write for it, and a token endpoint on a ``TestOrigin``
/// that checks each token request as Google's does and hands out access tokens.
package final class TestServiceAccount: Sendable {
    /// The account's email.
    package let email = "webimage-test@webimage-tests.iam.gserviceaccount.com"
    /// The ID of its key.
    package let keyID = "test-key-1"
    /// Its private key.
    package let privateKey: _RSA.Signing.PrivateKey
    /// The token endpoint, on the origin.
    package let tokenURI: URL
    /// The route of the token endpoint on the origin.
    package static let tokenPath = "/oauth2/token"
    /// The lifetime, in seconds, of the access tokens handed out.
    package let tokenLifetime: Int
    /// The assertions received, decoded, in order; the tokens handed out are `token-1`, `token-2`, ….
    private let received = Recorder<ReceivedAssertion>()

    /// One token request, as the endpoint read it.
    package struct ReceivedAssertion: Sendable {
        /// The JOSE header.
        package let header: [String: String]
        /// The claims, as JSON values.
        package let claims: [String: JSONValue]
        /// Whether the signature is the account's key's RS256 signature of the first two parts.
        package let signatureIsValid: Bool
        /// The request's `grant_type`.
        package let grantType: String?
    }

    /// A claim's value: text or a number.
    package enum JSONValue: Sendable, Equatable {
        case text(String)
        case number(Double)
    }

    /// Generates the account and serves its token endpoint on `origin`; the endpoint refuses
    /// every request with `refusal` (a status and a JSON body) when one is given, and holds
    /// every answer until `gate` opens when one is given.
    package init(
        origin: TestOrigin, tokenLifetime: Int = 3600, refusal: (status: Int, body: String)? = nil, gate: TestOriginGate? = nil
    ) throws {
        privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        self.tokenLifetime = tokenLifetime
        tokenURI = origin.url(Self.tokenPath)
        let publicKey = privateKey.publicKey
        let received = self.received
        origin.register(Self.tokenPath) { request in
            if let refusal {
                return TestOriginResponse(status: refusal.status, body: Data(refusal.body.utf8), contentType: "application/json")
            }
            let form = Self.form(request.body)
            guard request.method == "POST", let assertion = form["assertion"],
                  let decoded = Self.decode(assertion, publicKey: publicKey, grantType: form["grant_type"])
            else {
                return TestOriginResponse(status: 400, body: Data(#"{"error":"invalid_request","error_description":"no assertion"}"#.utf8), contentType: "application/json")
            }
            received.append(decoded)
            guard decoded.signatureIsValid else {
                return TestOriginResponse(status: 400, body: Data(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#.utf8), contentType: "application/json")
            }
            let body = #"{"access_token":"token-\#(received.count)","expires_in":\#(tokenLifetime),"token_type":"Bearer"}"#
            let answer = TestOriginResponse(status: 200, body: Data(body.utf8), contentType: "application/json")
            return gate.map { .gated($0, then: answer) } ?? answer
        }
    }

    /// The PEM of an RSA key of 2048 bits generated now, for a key file with no token endpoint behind it.
    package static func generatedKeyPEM() throws -> String {
        try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
    }

    /// The JSON key file of the account, as the Cloud console writes it.
    package var json: String {
        let fields: [String: String] = [
            "type": "service_account", "project_id": "webimage-tests", "private_key_id": keyID, "private_key": privateKey.pemRepresentation,
            "client_email": email, "client_id": "1234567890", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": tokenURI.absoluteString,
        ]
        let data = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// The route of the token endpoint on the origin.
    package var tokenPath: String { Self.tokenPath }

    /// The token requests received so far, in order.
    package var assertions: [ReceivedAssertion] { received.values }

    /// The fields of an `application/x-www-form-urlencoded` body.
    private static func form(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacing("+", with: " ").removingPercentEncoding ?? String($0) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// The header, claims and signature check of a JWT, or `nil` when it is not three base64url parts of JSON.
    private static func decode(_ token: String, publicKey: _RSA.Signing.PublicKey, grantType: String?) -> ReceivedAssertion? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = base64URL(parts[0]), let claimsData = base64URL(parts[1]), let signature = base64URL(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: String],
              let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any]
        else { return nil }
        var values: [String: JSONValue] = [:]
        for (name, value) in claims {
            if let text = value as? String { values[name] = .text(text) } else if let number = value as? NSNumber { values[name] = .number(number.doubleValue) }
        }
        let valid = publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: Data("\(parts[0]).\(parts[1])".utf8), padding: .insecurePKCS1v1_5
        )
        return ReceivedAssertion(header: header, claims: values, signatureIsValid: valid, grantType: grantType)
    }

    /// Base64url without padding, decoded.
    private static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacing("-", with: "+").replacing("_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
