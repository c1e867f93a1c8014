import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Holding temporary credentials: one fetch for all concurrent callers, a new one before
/// they expire, the old ones while they last when a refresh fails.
@Suite("AWS credentials cache")
struct AWSCredentialsCacheTests {
    /// A fetch that counts its calls and, while `held`, waits until released.
    private final class Fetches: Sendable {
        private let calls = Mutex(0)
        private let release: AsyncStream<Void>
        private let releaser: AsyncStream<Void>.Continuation

        init() {
            (release, releaser) = AsyncStream.makeStream(of: Void.self)
        }

        var count: Int { calls.withLock { $0 } }

        func open() { releaser.finish() }

        /// Credentials `AKID<n>` (the n-th call) that expire `lifetime` after `now`.
        func fetch(lifetime: TimeInterval, from now: Date = Date(), held: Bool = false) async -> AWSCredentials {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            if held { for await _ in release {} }
            return AWSCredentials(accessKeyID: "AKID\(call)", secretAccessKey: "s", expiration: now.addingTimeInterval(lifetime))
        }
    }

    @Test("concurrent callers of expired credentials share one fetch")
    func singleFlight() async throws {
        let cache = AWSCredentialsCache()
        let fetches = Fetches()
        // Credentials inside the refresh margin: only callers joining the fetch in flight share it.
        let lifetime: TimeInterval = 60
        let callers = 8
        let keys = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<callers {
                group.addTask { try await cache.credentials { await fetches.fetch(lifetime: lifetime, held: true) }.accessKeyID }
            }
            while cache.waitingCount < callers { try await Task.sleep(for: .milliseconds(1)) }
            fetches.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(keys == Array(repeating: "AKID1", count: callers))
        #expect(fetches.count == 1)
    }

    @Test("fresh credentials are held; those within the refresh margin are fetched again; keys without expiration are held for good")
    func refreshMargin() async throws {
        let fetches = Fetches()
        let cache = AWSCredentialsCache(refreshAhead: .seconds(300))
        #expect(try await cache.credentials { await fetches.fetch(lifetime: 3600) }.accessKeyID == "AKID1")
        #expect(try await cache.credentials { await fetches.fetch(lifetime: 3600) }.accessKeyID == "AKID1")
        #expect(fetches.count == 1)

        // Expirations and the cache's clock on one fixed clock: nothing depends on how long the steps take.
        let start = Date()
        let later = Mutex(start)
        let clock = AWSCredentialsCache(refreshAhead: .seconds(300), now: { later.withLock { $0 } })
        #expect(try await clock.credentials { await fetches.fetch(lifetime: 3600, from: start) }.accessKeyID == "AKID2")
        later.withLock { $0 = start.addingTimeInterval(3600 - 301) }
        #expect(try await clock.credentials { await fetches.fetch(lifetime: 3600, from: start) }.accessKeyID == "AKID2")
        later.withLock { $0 = start.addingTimeInterval(3600 - 299) }
        #expect(try await clock.credentials { await fetches.fetch(lifetime: 7200, from: start) }.accessKeyID == "AKID3")

        let keys = AWSCredentialsCache()
        let longTerm = AWSCredentials(accessKeyID: "AKIALONG", secretAccessKey: "s")
        _ = try await keys.credentials { longTerm }
        #expect(try await keys.credentials { AWSCredentials(accessKeyID: "other", secretAccessKey: "s") } == longTerm)
    }

    @Test("a failed refresh hands out the held credentials while they last, and throws once they have expired")
    func failedRefresh() async throws {
        let now = Mutex(Date())
        let cache = AWSCredentialsCache(refreshAhead: .seconds(300), now: { now.withLock { $0 } })
        let first = AWSCredentials(accessKeyID: "AKID1", secretAccessKey: "s", expiration: now.withLock { $0 }.addingTimeInterval(600))
        _ = try await cache.credentials { first }
        now.withLock { $0 = $0.addingTimeInterval(400) }
        let failure = ImageError.credentialsUnavailable("STS is down")
        #expect(try await cache.credentials { () async throws(ImageError) -> AWSCredentials in throw failure } == first)
        now.withLock { $0 = $0.addingTimeInterval(300) }
        await #expect(throws: failure) {
            try await cache.credentials { () async throws(ImageError) -> AWSCredentials in throw failure }
        }
    }
}
