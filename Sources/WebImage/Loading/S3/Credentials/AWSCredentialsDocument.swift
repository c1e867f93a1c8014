import Foundation

/// The JSON the container credentials endpoint and the instance metadata service answer
/// with: `{"AccessKeyId": …, "SecretAccessKey": …, "Token": …, "Expiration": "…Z"}`, the
/// instance metadata service's with `"Code": "Success"`.
struct AWSCredentialsDocument: Decodable {
    var code: String?
    var message: String?
    var accessKeyID: String?
    var secretAccessKey: String?
    var token: String?
    var expiration: String?

    private enum CodingKeys: String, CodingKey {
        case code = "Code", message = "Message", accessKeyID = "AccessKeyId", secretAccessKey = "SecretAccessKey", token = "Token"
        case expiration = "Expiration"
    }

    /// The credentials of `body`.
    /// - Parameter what: the source, for the error.
    /// - Throws: ``ImageError/credentialsUnavailable(_:)`` when `body` is not such a document.
    static func credentials(in body: Data, from what: String) throws(ImageError) -> AWSCredentials {
        let document: AWSCredentialsDocument
        do {
            document = try JSONDecoder().decode(AWSCredentialsDocument.self, from: body)
        } catch {
            throw .credentialsUnavailable("\(what) answered with something other than a credentials document: \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
        if let code = document.code, code != "Success" {
            throw .credentialsUnavailable("\(what) answered \(code)\(document.message.map { ": \($0)" } ?? "")")
        }
        guard let keyID = document.accessKeyID, !keyID.isEmpty, let secret = document.secretAccessKey, !secret.isEmpty else {
            throw .credentialsUnavailable("\(what) answered a credentials document without AccessKeyId and SecretAccessKey")
        }
        var expiration: Date?
        if let text = document.expiration {
            guard let date = AWSTimestamp.date(text) else {
                throw .credentialsUnavailable("\(what) answered the expiration '\(text.prefix(40))', which is not an ISO 8601 time")
            }
            expiration = date
        }
        return AWSCredentials(accessKeyID: keyID, secretAccessKey: secret, sessionToken: document.token, expiration: expiration)
    }
}
