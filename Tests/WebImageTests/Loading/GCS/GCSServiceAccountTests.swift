import Foundation
import Testing
@testable import WebImage
import WebImageLocking
import WebImageTestSupport

/// ``GCSImageLoader`` with a service account's key, against a token endpoint and a JSON API
/// both served by the in-process test origin.
@Suite("GCS image loader with a service account")
struct GCSServiceAccountTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 10, height: 6), as: .png)
    static let objectPath = "/storage/v1/b/photos/o/cats%2Ftom.png"

    /// The object at ``objectPath``, answered only to a request carrying `Bearer <token>` of
    /// the tokens in `accepted`; 401 otherwise.
    private func serveObject(on origin: TestOrigin, accepting accepted: @escaping @Sendable (String) -> Bool = { _ in true }) {
        origin.register(Self.objectPath) { request in
            guard request.queryValue("alt") == "media", let authorization = request.header("authorization"),
                  authorization.hasPrefix("Bearer "), accepted(String(authorization.dropFirst("Bearer ".count)))
            else {
                return TestOriginResponse(status: 401, body: Data(#"{"error":{"code":401,"message":"Invalid Credentials","errors":[{"reason":"authError"}]}}"#.utf8), contentType: "application/json")
            }
            return .image(Self.png)
        }
    }

    private func loader(_ account: TestServiceAccount, origin: TestOrigin, downloader: ImageDownloader, clock: Locked<Date>) throws -> GCSImageLoader {
        let key = try GCSServiceAccountKey(json: Data(account.json.utf8))
        return GCSImageLoader(
            configuration: GCSConfiguration(endpoint: origin.baseURL.absoluteString, credentials: .serviceAccount(key)),
            downloader: downloader, now: { clock.withLock { $0 } }
        )
    }

    @Test("the token request is a JWT signed RS256 by the account's key, with its claims; the object GET carries the token")
    func signedAssertionAndBearerToken() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let account = try TestServiceAccount(origin: origin)
            serveObject(on: origin)
            let issued = Date(timeIntervalSince1970: 1_800_000_000)
            let loader = try loader(account, origin: origin, downloader: downloader, clock: Locked(issued))
            let url = URL(string: "gs://photos/cats/tom.png")!
            let response = try await loader.load(url, options: DownloadOptions(), progress: nil)
            #expect(response.data == Self.png)
            #expect(response.head.url == url)

            let assertion = try #require(account.assertions.first)
            #expect(assertion.grantType == "urn:ietf:params:oauth:grant-type:jwt-bearer")
            #expect(assertion.header == ["alg": "RS256", "typ": "JWT", "kid": account.keyID])
            #expect(assertion.signatureIsValid)
            #expect(assertion.claims["iss"] == .text(account.email))
            #expect(assertion.claims["scope"] == .text("https://www.googleapis.com/auth/devstorage.read_only"))
            #expect(assertion.claims["aud"] == .text(account.tokenURI.absoluteString))
            #expect(assertion.claims["iat"] == .number(1_800_000_000))
            #expect(assertion.claims["exp"] == .number(1_800_003_600))
            let tokenRequest = try #require(origin.lastRequest(account.tokenPath))
            #expect(tokenRequest.method == "POST")
            #expect(tokenRequest.header("content-type") == "application/x-www-form-urlencoded")
            #expect(origin.lastRequest(Self.objectPath)?.header("authorization") == "Bearer token-1")
        }
    }

    @Test("a token is asked for once while it lives, again once it is about to expire or has expired")
    func tokenKeptUntilItExpires() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let account = try TestServiceAccount(origin: origin, tokenLifetime: 3600)
            serveObject(on: origin)
            let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
            let loader = try loader(account, origin: origin, downloader: downloader, clock: clock)
            let url = URL(string: "gs://photos/cats/tom.png")!
            _ = try await loader.load(url, options: DownloadOptions(), progress: nil)
            clock.withLock { $0 += 3000 }
            _ = try await loader.load(url, options: DownloadOptions(), progress: nil)
            #expect(origin.requestCount(account.tokenPath) == 1)
            #expect(origin.requests(Self.objectPath).map { $0.header("authorization") } == ["Bearer token-1", "Bearer token-1"])

            clock.withLock { $0 += 590 }  // 10 s left: within the refresh margin
            _ = try await loader.load(url, options: DownloadOptions(), progress: nil)
            #expect(origin.requestCount(account.tokenPath) == 2)
            #expect(origin.lastRequest(Self.objectPath)?.header("authorization") == "Bearer token-2")

            clock.withLock { $0 += 7200 }  // long expired
            _ = try await loader.load(url, options: DownloadOptions(), progress: nil)
            #expect(origin.requestCount(account.tokenPath) == 3)
            #expect(origin.lastRequest(Self.objectPath)?.header("authorization") == "Bearer token-3")
        }
    }

    @Test("loads at once while no token is kept share one token request")
    func concurrentLoadsShareOneTokenRequest() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let gate = TestOriginGate()
            let account = try TestServiceAccount(origin: origin, gate: gate)
            serveObject(on: origin)
            let loader = try loader(account, origin: origin, downloader: downloader, clock: Locked(Date()))
            let tokens = try #require(loader.tokens)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { _ = try await loader.load(URL(string: "gs://photos/cats/tom.png")!, options: DownloadOptions(), progress: nil) }
                }
                // The token's answer is held until the three other loads wait for it.
                #expect(await gate.waitForArrivals(1))
                #expect(await eventually { tokens.joinedRequests.withLock { $0 } == 3 })
                gate.open()
                try await group.waitForAll()
            }
            #expect(origin.requestCount(account.tokenPath) == 1)
            #expect(origin.requests(Self.objectPath).allSatisfy { $0.header("authorization") == "Bearer token-1" })
        }
    }

    @Test("a kept token GCS refuses is replaced once, and the load succeeds")
    func refusedTokenReplacedOnce() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let account = try TestServiceAccount(origin: origin)
            let revoked = Locked(false)
            serveObject(on: origin) { token in !(revoked.withLock { $0 } && token == "token-1") }
            let loader = try loader(account, origin: origin, downloader: downloader, clock: Locked(Date()))
            let url = URL(string: "gs://photos/cats/tom.png")!
            _ = try await loader.load(url, options: DownloadOptions(), progress: nil)
            revoked.withLock { $0 = true }
            let response = try await loader.load(url, options: DownloadOptions(), progress: nil)
            #expect(response.data == Self.png)
            #expect(origin.requestCount(account.tokenPath) == 2)
            #expect(origin.requests(Self.objectPath).map { $0.header("authorization") } == ["Bearer token-1", "Bearer token-1", "Bearer token-2"])
        }
    }

    @Test("a refused token exchange is accessDenied naming the account and the endpoint's answer; the object is not asked for")
    func refusedTokenExchange() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let refusal = #"{"error":"invalid_grant","error_description":"Invalid grant: account not found"}"#
            let account = try TestServiceAccount(origin: origin, refusal: (400, refusal))
            serveObject(on: origin)
            let loader = try loader(account, origin: origin, downloader: downloader, clock: Locked(Date()))
            let error = await #expect(throws: ImageError.self) {
                _ = try await loader.load(URL(string: "gs://photos/cats/tom.png")!, options: DownloadOptions(), progress: nil)
            }
            guard case .accessDenied(let reason) = error else {
                Issue.record("expected accessDenied, got \(String(describing: error))")
                return
            }
            #expect(reason.hasPrefix("gs://photos/cats/tom.png: "))
            #expect(reason.contains(account.email))
            #expect(reason.contains(account.tokenURI.absoluteString))
            #expect(reason.contains("invalid_grant: Invalid grant: account not found"))
            #expect(origin.requestCount(Self.objectPath) == 0)
        }
    }

    @Test("a token endpoint that fails (5xx) is invalidResponse naming it, not a refusal")
    func failingTokenEndpoint() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let account = try TestServiceAccount(origin: origin, refusal: (503, #"{"error":"backend_error"}"#))
            serveObject(on: origin)
            let loader = try loader(account, origin: origin, downloader: downloader, clock: Locked(Date()))
            let error = await #expect(throws: ImageError.self) {
                _ = try await loader.load(URL(string: "gs://photos/cats/tom.png")!, options: DownloadOptions(), progress: nil)
            }
            guard case .invalidResponse(let reason) = error else {
                Issue.record("expected invalidResponse, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("\(account.tokenURI.absoluteString) failed for the service account \(account.email) (HTTP 503: backend_error)"))
        }
    }

    @Test("an object the account may not read is accessDenied naming the account and GCS's reason")
    func forbiddenObject() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let account = try TestServiceAccount(origin: origin)
            origin.register(Self.objectPath, TestOriginResponse(
                status: 403, body: Data(#"{"error":{"code":403,"message":"no storage.objects.get access","errors":[{"reason":"forbidden"}]}}"#.utf8),
                contentType: "application/json"
            ))
            let loader = try loader(account, origin: origin, downloader: downloader, clock: Locked(Date()))
            let error = await #expect(throws: ImageError.self) {
                _ = try await loader.load(URL(string: "gs://photos/cats/tom.png")!, options: DownloadOptions(), progress: nil)
            }
            guard case .accessDenied(let reason) = error else {
                Issue.record("expected accessDenied, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("service account \(account.email)"))
            #expect(reason.contains("forbidden: no storage.objects.get access"))
        }
    }
}
