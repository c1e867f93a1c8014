import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Credentials from a shared credentials file, a web identity token and an assumed role,
/// used to load private objects from moto's server on 127.0.0.1, which serves STS beside
/// S3 and checks every signature.
@Suite("S3 credentials from profiles and STS against moto")
struct AWSSecurityTokenServiceTests {
    /// A private bucket of the test's own holding one PNG; its name and the PNG.
    private func bucket(_ server: MotoS3Server) async throws -> (name: String, image: Data) {
        let image = try TestImages.encode(try TestImages.quadrants(width: 6, height: 4), as: .png)
        let name = "creds-\(UUID().uuidString.prefix(8).lowercased())"
        try await server.makeBucket(name, objects: [("p.png", image)])
        return (name, image)
    }

    /// Loads `s3://<bucket>/p.png` with `configuration`.
    private func load(_ bucket: String, _ configuration: S3Configuration) async throws -> Data {
        let downloader = ImageDownloader(config: DownloaderConfig())
        defer { Task { await downloader.shutdown() } }
        let loader = S3ImageLoader(configuration: configuration, downloader: downloader)
        return try await loader.load(URL(string: "s3://\(bucket)/p.png")!, options: DownloadOptions(), progress: nil).data
    }

    @Test("the keys of the profile AWS_PROFILE names in a credentials file sign the GET")
    func profileKeys() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server)
        let home = try AWSTestDirectory()
        defer { home.remove() }
        try home.write(".aws/credentials", """
            [default]
            aws_access_key_id = AKIANOTKNOWN
            aws_secret_access_key = wrong
            [images]
            aws_access_key_id = \(server.credentials.accessKeyID)
            aws_secret_access_key = \(server.credentials.secretAccessKey)
            """)
        let environment = ["AWS_PROFILE": "images", "AWS_ENDPOINT_URL_S3": server.endpoint, "AWS_EC2_METADATA_DISABLED": "true"]
        let configuration = try S3Configuration.fromEnvironment(environment, homeDirectory: home.path)
        #expect(try await load(bucket.name, configuration) == bucket.image)
    }

    @Test("a web identity token file: STS AssumeRoleWithWebIdentity (unsigned) gives temporary keys that sign the GET")
    func webIdentity() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server)
        let home = try AWSTestDirectory()
        defer { home.remove() }
        let token = try home.write("token", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ3ZWJpbWFnZSJ9.c2lnbmF0dXJl\n")
        let environment = [
            "AWS_WEB_IDENTITY_TOKEN_FILE": token, "AWS_ROLE_ARN": server.roleARN, "AWS_ROLE_SESSION_NAME": "webimage-test",
            "AWS_ENDPOINT_URL": server.endpoint, "AWS_EC2_METADATA_DISABLED": "true",
        ]
        let configuration = try S3Configuration.fromEnvironment(environment, homeDirectory: home.path)
        let chain = try #require(configuration.credentialsProvider as? AWSCredentialsChain)
        #expect(try await chain.resolve() == .webIdentity(roleARN: server.roleARN, tokenFile: token))
        let credentials = try #require(try await chain.credentials())
        #expect(credentials.accessKeyID.hasPrefix("ASIA"))
        #expect(credentials.sessionToken != nil)
        #expect(credentials.expiration != nil)
        #expect(try await load(bucket.name, configuration) == bucket.image)
    }

    @Test("assume role: STS AssumeRole signed with the base credentials gives the role's keys, which sign the GET")
    func assumeRole() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server)
        let role = try AWSAssumeRoleCredentialsProvider(
            roleARN: server.roleARN, externalID: "images-external-id", base: AWSStaticCredentialsProvider(server.credentials), region: "us-east-1",
            stsEndpoint: URL(string: server.endpoint)!
        )
        let credentials = try #require(try await role.credentials())
        #expect(credentials.accessKeyID != server.credentials.accessKeyID)
        #expect(credentials.accessKeyID.hasPrefix("ASIA"))
        #expect(try await load(bucket.name, S3Configuration(endpoint: server.endpoint, credentialsProvider: role)) == bucket.image)
    }

    @Test("assume role with a wrong base secret is credentialsUnavailable naming the role and STS's code")
    func assumeRoleRefused() async throws {
        let server = try await MotoS3Server.shared()
        let wrong = AWSCredentials(accessKeyID: server.credentials.accessKeyID, secretAccessKey: "wrong")
        let role = try AWSAssumeRoleCredentialsProvider(
            roleARN: server.roleARN, base: AWSStaticCredentialsProvider(wrong), region: "us-east-1", stsEndpoint: URL(string: server.endpoint)!
        )
        await #expect {
            try await role.credentials()
        } throws: { error in
            guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
            return message.contains(server.roleARN) && message.contains("SignatureDoesNotMatch") && !message.contains("wrong")
        }
    }

    @Test("the AssumeRole request: a signed form POST naming the role, the session and the external ID; the role's keys held for their lifetime")
    func assumeRoleRequest() async throws {
        try await TestOrigin.with { origin in
            let expiration = Date().addingTimeInterval(3600).formatted(.iso8601)
            origin.register("/", .text("""
                <AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials>
                <AccessKeyId>ASIAROLE</AccessKeyId><SecretAccessKey>role-secret</SecretAccessKey><SessionToken>role-token</SessionToken>
                <Expiration>\(expiration)</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>
                """, contentType: "text/xml"))
            let role = try AWSAssumeRoleCredentialsProvider(
                roleARN: "arn:aws:iam::123456789012:role/images", externalID: "ext 1", sessionName: "webimage-session",
                base: AWSStaticCredentialsProvider(AWSCredentials(accessKeyID: "AKIABASE", secretAccessKey: "base-secret")), region: "eu-west-1",
                stsEndpoint: origin.baseURL
            )
            #expect(try await role.credentials() == AWSCredentials(
                accessKeyID: "ASIAROLE", secretAccessKey: "role-secret", sessionToken: "role-token", expiration: AWSTimestamp.date(expiration)
            ))
            _ = try await role.credentials()
            #expect(origin.requestCount("/") == 1)
            let request = try #require(origin.lastRequest("/"))
            #expect(request.method == "POST")
            let form = String(decoding: request.body, as: UTF8.self).split(separator: "&").map(String.init)
            #expect(Set(form) == [
                "Action=AssumeRole", "Version=2011-06-15", "RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fimages",
                "RoleSessionName=webimage-session", "ExternalId=ext%201",
            ])
            let authorization = try #require(request.header("Authorization"))
            #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIABASE/"))
            #expect(authorization.contains("/eu-west-1/sts/aws4_request"))
            #expect(!authorization.contains("base-secret"))
        }
    }

    @Test("the AssumeRoleWithWebIdentity request: an unsigned form POST with the token file's token, the role and the session name")
    func webIdentityRequest() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        let token = try home.write("token", "header.payload.signature\n")
        try await TestOrigin.with { origin in
            let expiration = Date().addingTimeInterval(3600).formatted(.iso8601)
            origin.register("/", .text("""
                <AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>ASIAWEB</AccessKeyId>
                <SecretAccessKey>web-secret</SecretAccessKey><SessionToken>web-token</SessionToken><Expiration>\(expiration)</Expiration>
                </Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>
                """, contentType: "text/xml"))
            let chain = AWSCredentialsChain(
                environment: [
                    "AWS_WEB_IDENTITY_TOKEN_FILE": token, "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/eks", "AWS_ROLE_SESSION_NAME": "pod-1",
                    "AWS_ENDPOINT_URL_STS": origin.baseURL.absoluteString, "AWS_EC2_METADATA_DISABLED": "true",
                ],
                homeDirectory: home.path
            )
            #expect(try await chain.credentials()?.accessKeyID == "ASIAWEB")
            _ = try await chain.credentials()
            #expect(origin.requestCount("/") == 1)
            let request = try #require(origin.lastRequest("/"))
            #expect(request.method == "POST")
            #expect(request.header("Authorization") == nil)
            let form = String(decoding: request.body, as: UTF8.self).split(separator: "&").map(String.init)
            #expect(Set(form) == [
                "Action=AssumeRoleWithWebIdentity", "Version=2011-06-15", "RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Feks",
                "RoleSessionName=pod-1", "WebIdentityToken=header.payload.signature",
            ])
        }
    }

    @Test("STS refusing the web identity token is credentialsUnavailable naming the token file, STS's code and what to check")
    func webIdentityRefused() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        let token = try home.write("token", "expired")
        try await TestOrigin.with { origin in
            origin.register("/", .text(
                "<ErrorResponse><Error><Type>Sender</Type><Code>ExpiredTokenException</Code><Message>Token expired</Message></Error></ErrorResponse>",
                status: 400, contentType: "text/xml"
            ))
            let provider = try AWSWebIdentityCredentialsProvider(roleARN: "arn:aws:iam::1:role/r", tokenFile: token, stsEndpoint: origin.baseURL)
            await #expect {
                try await provider.credentials()
            } throws: { error in
                guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
                return message.contains(token) && message.contains("ExpiredTokenException") && message.contains("HTTP 400")
            }
        }
    }
}

