import Foundation
import NIOHTTP1
import WebImageLocking

/// The OAuth 2.0 access tokens of one service account: each asked of the key's token
/// endpoint with a signed ``GCSTokenAssertion``, kept while it lives, and asked again
/// ``refreshMargin`` before it expires. One request at a time: callers that need a token
/// while one is being asked for wait for that one (single flight).
///
/// The token requests go through the loader's ``ImageDownloader``, so its timeouts, body
/// limit, request modifier, hop guard and address pinning apply to them as to any download.
actor GCSAccessTokens {
    /// A token and the time it stops being valid.
    struct Token: Sendable {
        var value: String
        var expiresAt: Date
    }

    /// How long before its expiry a token is no longer handed out.
    static let refreshMargin: TimeInterval = 60

    let key: GCSServiceAccountKey
    private let downloader: ImageDownloader
    private let now: @Sendable () -> Date
    private var current: Token?
    private var pending: Task<Result<Token, ImageError>, Never>?
    /// How many callers waited for a token request another caller started (readable from any
    /// thread: what single flight saved).
    nonisolated let joinedRequests = Locked(0)

    /// Tokens of `key`, asked for through `downloader`; `now` is the clock.
    init(key: GCSServiceAccountKey, downloader: ImageDownloader, now: @escaping @Sendable () -> Date) {
        self.key = key
        self.downloader = downloader
        self.now = now
    }

    /// A token valid for at least ``refreshMargin`` more, asked for when there is none.
    /// - Parameter location: the object the token is for, named in errors.
    /// - Throws: ``ImageError/accessDenied(_:)`` when the endpoint refuses the account, or the
    ///   downloader's error when it cannot be reached.
    func token(for location: GCSObjectLocation) async throws(ImageError) -> String {
        if let current, current.expiresAt.timeIntervalSince(now()) > Self.refreshMargin {
            return current.value
        }
        let task: Task<Result<Token, ImageError>, Never>
        if let pending {
            task = pending
            joinedRequests.withLock { $0 += 1 }
        } else {
            // Unstructured: a caller that is cancelled does not fail the others waiting on it.
            task = Task { await self.exchange() }
            pending = task
        }
        let result = await task.value
        if pending == task {
            pending = nil
            if case .success(let token) = result { current = token }
        }
        switch result {
        case .success(let token): return token.value
        case .failure(let error): throw Self.error(error, for: location)
        }
    }

    /// Forgets `value` when it is the token kept: GCS refused it (revoked, or the clock is off).
    func discard(_ value: String) {
        if current?.value == value { current = nil }
    }

    /// One token request: the assertion signed now, POSTed as a form. Its errors name the
    /// account and the endpoint; each caller adds the object it asked for.
    private func exchange() async -> Result<Token, ImageError> {
        let endpoint = key.tokenURI
        let account = key.clientEmail
        let issuedAt = now()
        let body: Data
        do throws(ImageError) {
            body = try GCSTokenAssertion(key: key, issuedAt: issuedAt).formBody
        } catch {
            return .failure(error)
        }
        var options = DownloadOptions()
        options.returnsErrorResponses = true
        let modifier = downloader.config.requestModifier
        options.requestModifier = { described in
            var described = described
            if let modifier {
                guard let modified = await modifier(described) else { return nil }
                described = modified
            }
            guard described.url == endpoint else { return described }
            described.method = .POST
            described.body = body
            described.headers.replaceOrAdd(name: "Content-Type", value: "application/x-www-form-urlencoded")
            described.headers.replaceOrAdd(name: "Accept", value: "application/json")
            return described
        }
        let response: DownloadResponse
        do throws(ImageError) {
            response = try await downloader.load(endpoint, options: options, progress: nil)
        } catch {
            return .failure(Self.unreachable(error, account: account, endpoint: endpoint))
        }
        let answer = TokenAnswer(response.data)
        let status = response.head.statusCode
        guard (200..<300).contains(status) else {
            let reason = answer.error.map { error in error + (answer.errorDescription.map { ": \($0)" } ?? "") }
                ?? Self.text(response.data)
            if status >= 500 {
                return .failure(.invalidResponse(
                    "the token endpoint \(endpoint.absoluteString) failed for the service account \(account) (HTTP \(status)\(reason.isEmpty ? "" : ": \(reason)")); retry later"
                ))
            }
            return .failure(.accessDenied(
                "the token endpoint \(endpoint.absoluteString) refused the service account \(account) (HTTP \(status)\(reason.isEmpty ? "" : ": \(reason)")); "
                    + "check that the account and its key exist and are enabled, and that the clock of this machine is right"
            ))
        }
        guard let value = answer.accessToken, !value.isEmpty else {
            return .failure(.invalidResponse(
                "the token endpoint \(endpoint.absoluteString) answered the service account \(account) without an access_token (\(Self.text(response.data)))"
            ))
        }
        let lifetime = answer.expiresIn ?? GCSTokenAssertion.lifetime
        return .success(Token(value: value, expiresAt: issuedAt.addingTimeInterval(lifetime)))
    }

    /// The downloader's error for a token endpoint it could not ask, saying what it was for.
    private static func unreachable(_ error: ImageError, account: String, endpoint: URL) -> ImageError {
        prefixed(error, "asking the token endpoint \(endpoint.absoluteString) for a token of the service account \(account)")
    }

    /// A token request's error, said of the object `location` a caller asked for.
    private static func error(_ error: ImageError, for location: GCSObjectLocation) -> ImageError {
        prefixed(error, "\(location)")
    }

    /// `error` with `context` and a colon before its reason, for the cases a token request fails with.
    private static func prefixed(_ error: ImageError, _ context: String) -> ImageError {
        switch error {
        case .accessDenied(let reason): .accessDenied("\(context): \(reason)")
        case .invalidResponse(let reason): .invalidResponse("\(context): \(reason)")
        case .invalidRequest(let field, let reason): .invalidRequest(field: "\(context): \(field)", reason: reason)
        case .network(let reason): .network("\(context): \(reason)")
        case .timedOut(let reason): .timedOut("\(context): \(reason)")
        case .forbiddenSource(let reason): .forbiddenSource("\(context): \(reason)")
        default: error
        }
    }

    /// The start of a body that is not the JSON expected, as text.
    private static func text(_ data: Data) -> String {
        String(decoding: data.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The fields of the token endpoint's answer, success (`access_token`, `expires_in`) or
    /// refusal (`error`, `error_description`); those absent stay `nil`.
    private struct TokenAnswer: Decodable {
        var accessToken: String?
        var expiresIn: TimeInterval?
        var error: String?
        var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case error
            case errorDescription = "error_description"
        }

        init(_ data: Data) {
            self = (try? JSONDecoder().decode(TokenAnswer.self, from: data)) ?? TokenAnswer()
        }

        init() {}
    }
}
