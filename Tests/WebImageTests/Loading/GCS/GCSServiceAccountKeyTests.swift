import CryptoExtras
import Foundation
import Testing
@testable import WebImage

/// Reading a service account's JSON key.
@Suite("GCS service-account keys")
struct GCSServiceAccountKeyTests {
    static let pem = try! _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation

    private func json(_ fields: [String: String]) -> Data {
        try! JSONSerialization.data(withJSONObject: fields)
    }

    @Test("the account, the key's ID and the token endpoint are read; Google's endpoint when the key names none; the key is never printed")
    func fieldsRead() throws {
        let key = try GCSServiceAccountKey(json: json([
            "type": "service_account", "client_email": "a@p.iam.gserviceaccount.com", "private_key": Self.pem, "private_key_id": "k1",
            "token_uri": "https://oauth2.example.com/token",
        ]))
        #expect(key.clientEmail == "a@p.iam.gserviceaccount.com")
        #expect(key.privateKeyID == "k1")
        #expect(key.tokenURI.absoluteString == "https://oauth2.example.com/token")
        #expect(key.scope == "https://www.googleapis.com/auth/devstorage.read_only")
        #expect(!key.description.contains("PRIVATE KEY"))
        #expect(GCSCredentials.serviceAccount(key).description == "service account a@p.iam.gserviceaccount.com")
        let google = try GCSServiceAccountKey(json: json(["type": "service_account", "client_email": "a@p", "private_key": Self.pem]))
        #expect(google.tokenURI.absoluteString == "https://oauth2.googleapis.com/token")
    }

    @Test("what is not a service account's key is invalidRequest saying what is wrong, without the key's content")
    func malformedKeys() {
        let cases: [(Data, String)] = [
            (Data("{not json".utf8), "not JSON"),
            (Data("[1]".utf8), "not a JSON object"),
            (json(["type": "authorized_user", "client_email": "a@p", "private_key": Self.pem]), "'authorized_user', not 'service_account'"),
            (json(["type": "service_account", "private_key": Self.pem]), "no client_email"),
            (json(["type": "service_account", "client_email": "a@p"]), "no private_key"),
            (json(["type": "service_account", "client_email": "a@p", "private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"]), "not an RSA private key"),
            (json(["type": "service_account", "client_email": "a@p", "private_key": Self.pem, "token_uri": "ftp://x"]), "not an http(s) URL"),
        ]
        for (data, says) in cases {
            #expect {
                _ = try GCSServiceAccountKey(json: data)
            } throws: { error in
                guard case ImageError.invalidRequest(_, let reason) = error else { return false }
                return reason.contains(says) && !"\(error)".contains("BEGIN PRIVATE KEY")
            }
        }
    }
}
