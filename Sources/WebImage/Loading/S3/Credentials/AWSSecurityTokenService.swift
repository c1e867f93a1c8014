import Foundation

/// The two calls of AWS Security Token Service (STS) that hand out role credentials:
/// `AssumeRoleWithWebIdentity` (unsigned: the token is the proof) and `AssumeRole` (signed
/// with the caller's credentials), as form-encoded `POST`s answered with XML.
struct AWSSecurityTokenService: Sendable {
    /// Where STS is.
    let endpoint: URL
    /// The region requests are signed for: the endpoint's, `us-east-1` for the global one.
    let region: String
    /// How long a call may take.
    let timeout: Duration
    let http: AWSCredentialsHTTP

    /// The API version the calls name.
    static let version = "2011-06-15"

    init(endpoint: URL, region: String?, timeout: Duration = .seconds(30), http: AWSCredentialsHTTP = AWSCredentialsHTTP()) {
        self.endpoint = endpoint
        self.region = region.flatMap { $0.isEmpty ? nil : $0 } ?? "us-east-1"
        self.timeout = timeout
        self.http = http
    }

    /// The service at `endpoint`, else at `region`'s STS endpoint (the global one without a
    /// region), as a provider given either one is configured.
    init(endpoint: URL?, region: String?) throws(ImageError) {
        let resolved: URL
        if let endpoint { resolved = endpoint } else { resolved = try AWSServiceEndpoints(environment: [:]).sts(region: region) }
        self.init(endpoint: resolved, region: region)
    }

    /// The credentials of `roleARN` for the holder of the web identity `token`.
    func assumeRoleWithWebIdentity(roleARN: String, sessionName: String, token: String) async throws(ImageError) -> AWSCredentials {
        let parameters = [
            ("Action", "AssumeRoleWithWebIdentity"), ("Version", Self.version), ("RoleArn", roleARN), ("RoleSessionName", sessionName),
            ("WebIdentityToken", token),
        ]
        return try await call("AssumeRoleWithWebIdentity", roleARN: roleARN, parameters: parameters, signedWith: nil)
    }

    /// The credentials of `roleARN`, asked for with `credentials`; `externalID` when the
    /// role's trust policy wants one.
    func assumeRole(
        roleARN: String, sessionName: String, externalID: String?, credentials: AWSCredentials
    ) async throws(ImageError) -> AWSCredentials {
        var parameters = [("Action", "AssumeRole"), ("Version", Self.version), ("RoleArn", roleARN), ("RoleSessionName", sessionName)]
        if let externalID { parameters.append(("ExternalId", externalID)) }
        return try await call("AssumeRole", roleARN: roleARN, parameters: parameters, signedWith: credentials)
    }

    /// One call: the form `POST`, signed when `credentials` are given; the answer's credentials.
    private func call(
        _ action: String, roleARN: String, parameters: [(String, String)], signedWith credentials: AWSCredentials?
    ) async throws(ImageError) -> AWSCredentials {
        let body = Data(parameters.map { "\(AWSURIEncoding.encode($0.0))=\(AWSURIEncoding.encode($0.1))" }.joined(separator: "&").utf8)
        var host = endpoint.host ?? ""
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        if let port = endpoint.port, port != (endpoint.scheme?.lowercased() == "https" ? 443 : 80) { host += ":\(port)" }
        let contentType = "application/x-www-form-urlencoded; charset=utf-8"
        var headers = [("Content-Type", contentType)]
        if let credentials {
            let path = endpoint.path.isEmpty ? "/" : endpoint.path
            let signable = SigV4Request(
                method: "POST", path: path, headers: [("host", host), ("content-type", contentType)], payloadHash: SigV4Signer.payloadHash(of: body)
            )
            let signer = SigV4Signer(credentials: credentials, region: region, service: "sts")
            headers += signer.signedHeaders(for: signable, date: Date()).map { ($0.name, $0.value) }
        }
        let what = "STS \(action) of the role \(roleARN)"
        let response = try await http.send(.POST, endpoint, headers: headers, body: body, timeout: timeout, what: what)
        let text = response.text
        guard (200..<300).contains(response.status) else {
            let code = AWSXMLText.element("Code", in: text)
            let message = AWSXMLText.element("Message", in: text)
            let reason = [code, message].compactMap { $0 }.joined(separator: ": ")
            throw .credentialsUnavailable(
                "\(what) at \(AWSCredentialsHTTP.endpoint(of: endpoint)) answered HTTP \(response.status)\(reason.isEmpty ? "" : " (\(reason))"); "
                    + Self.advice(code: code, action: action)
            )
        }
        guard let keyID = AWSXMLText.element("AccessKeyId", in: text), let secret = AWSXMLText.element("SecretAccessKey", in: text) else {
            throw .credentialsUnavailable("\(what) answered without credentials: \(text.prefix(200))")
        }
        let expiration = AWSXMLText.element("Expiration", in: text).flatMap(AWSTimestamp.date)
        return AWSCredentials(
            accessKeyID: keyID, secretAccessKey: secret, sessionToken: AWSXMLText.element("SessionToken", in: text), expiration: expiration
        )
    }

    /// What to check after STS refused a call with `code`.
    private static func advice(code: String?, action: String) -> String {
        switch code {
        case "InvalidIdentityToken", "ExpiredTokenException", "IDPRejectedClaim":
            "check the web identity token file (AWS_WEB_IDENTITY_TOKEN_FILE) and the role's trust of its issuer"
        case "InvalidClientTokenId", "SignatureDoesNotMatch":
            "check the credentials AssumeRole is signed with"
        default:
            action == "AssumeRole"
                ? "check that the role exists, trusts the signing credentials (and the external ID, if it asks for one) and that they may call sts:AssumeRole"
                : "check the role ARN (AWS_ROLE_ARN) and that the role trusts the token's issuer"
        }
    }
}
