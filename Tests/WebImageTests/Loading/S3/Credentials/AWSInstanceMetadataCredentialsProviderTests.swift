import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The IMDSv2 exchange against an instance metadata service played by the test origin on
/// 127.0.0.1 (`AWS_EC2_METADATA_SERVICE_ENDPOINT`).
@Suite("AWS credentials from the EC2 instance metadata service")
struct AWSInstanceMetadataCredentialsProviderTests {
    private static let tokenPath = "/latest/api/token"
    private static let rolesPath = "/latest/meta-data/iam/security-credentials/"
    private static let rolePath = "/latest/meta-data/iam/security-credentials/images-role"

    /// Serves IMDSv2 with the session token `token` and credentials expiring `lifetime` from
    /// the time they are asked for; the credentials answer only a request carrying the token.
    private func serveMetadata(on origin: TestOrigin, token: String = "session-token-1", lifetime: TimeInterval) {
        origin.register(Self.tokenPath) { request in
            guard request.method == "PUT" else { return .status(405) }
            return .text(token)
        }
        origin.register(Self.rolesPath) { request in
            request.header("X-aws-ec2-metadata-token") == token ? .text("images-role\n") : .status(401)
        }
        origin.register(Self.rolePath) { request in
            guard request.header("X-aws-ec2-metadata-token") == token else { return .status(401) }
            let expiration = Date().addingTimeInterval(lifetime).formatted(.iso8601)
            let body = #"{"Code":"Success","Type":"AWS-HMAC","AccessKeyId":"ASIAIMDS\#(request.ordinal)","SecretAccessKey":"imds-secret","Token":"imds-session","Expiration":"\#(expiration)"}"#
            return .text(body, contentType: "application/json")
        }
    }

    private func chain(_ origin: TestOrigin, _ variables: [String: String] = [:]) -> AWSCredentialsChain {
        AWSCredentialsChain(
            environment: ["AWS_EC2_METADATA_SERVICE_ENDPOINT": origin.baseURL.absoluteString].merging(variables) { $1 },
            homeDirectory: "/nonexistent-home", instanceMetadataTimeout: .seconds(60)
        )
    }

    @Test("the chain ends at the metadata service: a token PUT with its TTL header, then the role and its credentials with the token")
    func exchange() async throws {
        try await TestOrigin.with { origin in
            serveMetadata(on: origin, lifetime: 6 * 3600)
            let chain = chain(origin)
            #expect(try await chain.resolve() == .instanceMetadata(endpoint: origin.baseURL.absoluteString))
            let credentials = try #require(try await chain.credentials())
            #expect(credentials.accessKeyID == "ASIAIMDS1")
            #expect(credentials.sessionToken == "imds-session")
            #expect(credentials.expiration != nil)

            let put = try #require(origin.lastRequest(Self.tokenPath))
            #expect(put.method == "PUT")
            #expect(put.header("X-aws-ec2-metadata-token-ttl-seconds") == "21600")
            #expect(origin.requests(Self.rolesPath).map { $0.header("X-aws-ec2-metadata-token") } == ["session-token-1"])
            #expect(origin.requests(Self.rolePath).map { $0.method } == ["GET"])

            // Within the credentials' lifetime, no request goes to the service again.
            _ = try await chain.credentials()
            _ = try await chain.credentials()
            #expect(origin.requestCount(Self.tokenPath) == 1)
            #expect(origin.requestCount(Self.rolePath) == 1)
        }
    }

    @Test("credentials within minutes of their expiration are fetched again, with a new token")
    func nearExpiryRefresh() async throws {
        try await TestOrigin.with { origin async throws in
            serveMetadata(on: origin, lifetime: 60)
            let provider = AWSInstanceMetadataCredentialsProvider(endpoint: origin.baseURL, timeout: .seconds(60))
            #expect(try await provider.credentials()?.accessKeyID == "ASIAIMDS1")
            #expect(try await provider.credentials()?.accessKeyID == "ASIAIMDS2")
            #expect(origin.requestCount(Self.tokenPath) == 2)
            #expect(origin.requestCount(Self.rolePath) == 2)
        }
    }

    @Test("a metadata service that refuses the token, or names no role, leaves the chain without credentials: unsigned, with the reason")
    func noRole() async throws {
        try await TestOrigin.with { origin in
            origin.register(Self.tokenPath, .status(403))
            let refused = chain(origin)
            #expect(try await refused.resolve() == nil)
            #expect(refused.unsignedReason?.contains("IMDSv2") == true)

            origin.register(Self.tokenPath, .text("t"))
            origin.register(Self.rolesPath, .status(404))
            let roleless = chain(origin)
            #expect(try await roleless.credentials() == nil)
            #expect(roleless.unsignedReason?.contains("no IAM role") == true)
            // The finding is kept: later requests do not probe the service again.
            _ = try await roleless.credentials()
            #expect(origin.requestCount(Self.rolesPath) == 1)
        }
    }

    @Test("AWS_EC2_METADATA_DISABLED keeps the chain off the metadata service")
    func disabled() async throws {
        try await TestOrigin.with { origin async throws in
            serveMetadata(on: origin, lifetime: 3600)
            let chain = chain(origin, ["AWS_EC2_METADATA_DISABLED": "TRUE"])
            #expect(try await chain.resolve() == nil)
            #expect(origin.totalRequestCount == 0)
        }
    }

    @Test("an error answer from the metadata service after start-up is credentialsUnavailable naming the service and the role")
    func credentialsError() async throws {
        try await TestOrigin.with { origin in
            serveMetadata(on: origin, lifetime: 3600)
            origin.register(Self.rolePath, .text(#"{"Code":"AssumeRoleUnauthorizedAccess","Message":"denied"}"#, contentType: "application/json"))
            let provider = AWSInstanceMetadataCredentialsProvider(endpoint: origin.baseURL, timeout: .seconds(60))
            await #expect {
                try await provider.credentials()
            } throws: { error in
                guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
                return message.contains("instance metadata") && message.contains("images-role") && message.contains("AssumeRoleUnauthorizedAccess")
            }
        }
    }
}
