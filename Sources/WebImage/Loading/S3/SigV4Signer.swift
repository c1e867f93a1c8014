import Crypto
import Foundation

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) in the `Authorization` header, as S3 and
/// every other AWS API accept it.
///
///     let signer = SigV4Signer(credentials: credentials, region: "eu-west-1", service: "s3")
///     let headers = signer.signedHeaders(for: request, date: .now)
///
/// Each step is its own call (``canonicalRequest(for:)``, ``stringToSign(for:date:)``,
/// ``signature(for:date:)``), so that each can be held against AWS's published examples.
public struct SigV4Signer: Sendable {
    /// The keys requests are signed with.
    public var credentials: AWSCredentials
    /// The region of the service, e.g. `us-east-1`.
    public var region: String
    /// The service's signing name, e.g. `s3`.
    public var service: String

    /// The SHA-256 of an empty body, in hex: the payload hash of a `GET`.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash of a request whose body is `body`: its SHA-256 in lower-case hex,
    /// as ``SigV4Request/payloadHash`` and S3's `x-amz-content-sha256` take it.
    public static func payloadHash(of body: Data) -> String {
        hex(SHA256.hash(data: body))
    }

    /// The signing algorithm's name.
    public static let algorithm = "AWS4-HMAC-SHA256"

    /// Creates a signer.
    public init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The canonical request: method, encoded path, sorted query, canonical headers, signed
    /// header names and payload hash, one a line.
    public func canonicalRequest(for request: SigV4Request) -> String {
        let headers = Self.canonicalHeaders(request.headers)
        return [
            request.method.uppercased(),
            request.encodedPath,
            request.encodedQuery,
            headers.map { "\($0.name):\($0.value)\n" }.joined(),
            headers.map(\.name).joined(separator: ";"),
            request.payloadHash,
        ].joined(separator: "\n")
    }

    /// The string to sign: the algorithm, the time, the credential scope and the hash of
    /// the canonical request.
    public func stringToSign(for request: SigV4Request, date: Date) -> String {
        let stamp = SigV4Timestamp(date)
        return [
            Self.algorithm,
            stamp.dateTime,
            scope(day: stamp.day),
            Self.hex(SHA256.hash(data: Data(canonicalRequest(for: request).utf8))),
        ].joined(separator: "\n")
    }

    /// The signature: the string to sign under the key derived from the secret, the day,
    /// the region and the service, in lower-case hex.
    public func signature(for request: SigV4Request, date: Date) -> String {
        let stamp = SigV4Timestamp(date)
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [stamp.day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let code = HMAC<SHA256>.authenticationCode(for: Data(stringToSign(for: request, date: date).utf8), using: key)
        return Self.hex(code)
    }

    /// The `Authorization` header's value for `request` at `date`.
    public func authorization(for request: SigV4Request, date: Date) -> String {
        let stamp = SigV4Timestamp(date)
        let signedNames = Self.canonicalHeaders(request.headers).map(\.name).joined(separator: ";")
        return "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope(day: stamp.day)), SignedHeaders=\(signedNames), Signature=\(signature(for: request, date: date))"
    }

    /// The headers that make `request` a signed one at `date`: `x-amz-date`,
    /// `x-amz-content-sha256` (the payload hash, which S3 requires), `x-amz-security-token`
    /// for temporary credentials, and `Authorization`. They are signed together with
    /// `request.headers`, which should name `host`.
    public func signedHeaders(for request: SigV4Request, date: Date) -> [(name: String, value: String)] {
        var added: [(name: String, value: String)] = [
            ("x-amz-date", SigV4Timestamp(date).dateTime),
            ("x-amz-content-sha256", request.payloadHash),
        ]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        var signed = request
        signed.headers += added
        return added + [("Authorization", authorization(for: signed, date: date))]
    }

    /// `<day>/<region>/<service>/aws4_request`.
    private func scope(day: String) -> String {
        "\(day)/\(region)/\(service)/aws4_request"
    }

    /// Names lower-cased and sorted; values trimmed, runs of spaces made one, the values
    /// of a repeated name joined by commas in order.
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
                .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            values[name.lowercased(), default: []].append(trimmed)
        }
        return values.keys.sorted().map { ($0, values[$0]!.joined(separator: ",")) }
    }

    /// Lower-case hex of `bytes`.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
