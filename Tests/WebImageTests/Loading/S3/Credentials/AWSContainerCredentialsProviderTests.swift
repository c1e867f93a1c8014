import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The container credentials endpoint (ECS) played by the test origin on 127.0.0.1
/// (`AWS_CONTAINER_CREDENTIALS_FULL_URI`).
@Suite("AWS credentials from the container credentials endpoint")
struct AWSContainerCredentialsProviderTests {
    private static let path = "/v2/credentials/task"

    /// Serves credentials expiring `lifetime` after each request, to requests with `Authorization: <authorization>`.
    private func serveCredentials(on origin: TestOrigin, authorization: String, lifetime: TimeInterval) {
        origin.register(Self.path) { request in
            guard request.header("Authorization") == authorization else { return .text("no", status: 401) }
            let expiration = Date().addingTimeInterval(lifetime).formatted(.iso8601)
            let body = #"{"RoleArn":"arn:aws:iam::1:role/task","AccessKeyId":"ASIAECS\#(request.ordinal)","SecretAccessKey":"ecs-secret","Token":"ecs-session","Expiration":"\#(expiration)"}"#
            return .text(body, contentType: "application/json")
        }
    }

    @Test("AWS_CONTAINER_CREDENTIALS_FULL_URI with AWS_CONTAINER_AUTHORIZATION_TOKEN: the token is the Authorization header; kept for their lifetime")
    func fullURIWithToken() async throws {
        try await TestOrigin.with { origin in
            serveCredentials(on: origin, authorization: "Bearer task-token", lifetime: 3600)
            let chain = AWSCredentialsChain(
                environment: [
                    "AWS_CONTAINER_CREDENTIALS_FULL_URI": origin.url(Self.path).absoluteString, "AWS_CONTAINER_AUTHORIZATION_TOKEN": "Bearer task-token",
                    "AWS_EC2_METADATA_DISABLED": "true",
                ],
                homeDirectory: "/nonexistent-home"
            )
            let credentials = try #require(try await chain.credentials())
            #expect(credentials == AWSCredentials(accessKeyID: "ASIAECS1", secretAccessKey: "ecs-secret", sessionToken: "ecs-session", expiration: credentials.expiration))
            _ = try await chain.credentials()
            #expect(origin.requestCount(Self.path) == 1)
            #expect(origin.lastRequest(Self.path)?.method == "GET")
        }
    }

    @Test("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE is read at each refresh and wins over the token variable")
    func tokenFile() async throws {
        let home = try AWSTestDirectory()
        defer { home.remove() }
        let file = try home.write("eks-token", "pod-token-1\n")
        try await TestOrigin.with { origin in
            serveCredentials(on: origin, authorization: "pod-token-1", lifetime: 60)
            let provider = try #require(try AWSContainerCredentialsProvider.fromEnvironment(AWSEnvironment([
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": origin.url(Self.path).absoluteString,
                "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": file, "AWS_CONTAINER_AUTHORIZATION_TOKEN": "stale",
            ]), timeout: .seconds(60)))
            #expect(try await provider.credentials()?.accessKeyID == "ASIAECS1")
            // Within minutes of their expiration: fetched again, with the file's new token.
            try home.write("eks-token", "pod-token-2")
            serveCredentials(on: origin, authorization: "pod-token-2", lifetime: 3600)
            #expect(try await provider.credentials()?.accessKeyID == "ASIAECS2")
            #expect(origin.requests(Self.path).map { $0.header("Authorization") } == ["pod-token-1", "pod-token-2"])
        }
    }

    @Test("a refused authorization token is credentialsUnavailable naming the variables to check")
    func refusedToken() async throws {
        try await TestOrigin.with { origin in
            serveCredentials(on: origin, authorization: "right", lifetime: 3600)
            let provider = AWSContainerCredentialsProvider(endpoint: origin.url(Self.path), authorizationToken: "wrong", timeout: .seconds(60))
            await #expect {
                try await provider.credentials()
            } throws: { error in
                guard case .credentialsUnavailable(let message) = error as? ImageError else { return false }
                return message.contains("HTTP 401") && message.contains("AWS_CONTAINER_AUTHORIZATION_TOKEN") && !message.contains("wrong")
            }
        }
    }
}
