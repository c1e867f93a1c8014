import Foundation
import Synchronization

/// Temporary credentials held until shortly before they expire, then fetched again: one
/// fetch at a time, which every request arriving meanwhile waits for (single flight).
///
/// Credentials without an expiration are kept for good. When a refresh fails while the held
/// credentials have not expired yet, those are handed out and the next request tries again.
final class AWSCredentialsCache: Sendable {
    private struct State {
        var held: AWSCredentials?
        var refresh: Task<Result<AWSCredentials, ImageError>, Never>?
        var waiting = 0
    }

    /// How long before their expiration credentials are fetched again.
    let refreshAhead: Duration
    /// The clock expirations are held against.
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    /// The callers waiting for a fetch now.
    var waitingCount: Int { state.withLock { $0.waiting } }

    /// Five minutes: well within the shortest lifetime STS gives (15 minutes).
    static let defaultRefreshAhead: Duration = .seconds(5 * 60)

    init(refreshAhead: Duration = defaultRefreshAhead, now: @escaping @Sendable () -> Date = { Date() }) {
        self.refreshAhead = refreshAhead
        self.now = now
    }

    /// The held credentials while they are fresh; otherwise those of `fetch`, which runs
    /// once for all the callers waiting at the time.
    func credentials(fetch: @escaping @Sendable () async throws(ImageError) -> AWSCredentials) async throws(ImageError) -> AWSCredentials {
        let date = now()
        let ahead = TimeInterval(refreshAhead.components.seconds)
        enum Next {
            case ready(AWSCredentials)
            case wait(Task<Result<AWSCredentials, ImageError>, Never>, stale: AWSCredentials?)
        }
        let next: Next = state.withLock { state in
            if let held = state.held, held.expiration.map({ $0.timeIntervalSince(date) > ahead }) ?? true {
                return .ready(held)
            }
            state.waiting += 1
            if let refresh = state.refresh { return .wait(refresh, stale: state.held) }
            // The task ends under the lock, which is held here until the task is stored in the state.
            let refresh = Task<Result<AWSCredentials, ImageError>, Never> {
                let result: Result<AWSCredentials, ImageError>
                do throws(ImageError) {
                    result = .success(try await fetch())
                } catch {
                    result = .failure(error)
                }
                self.state.withLock { state in
                    if case .success(let fetched) = result { state.held = fetched }
                    state.refresh = nil
                }
                return result
            }
            state.refresh = refresh
            return .wait(refresh, stale: state.held)
        }
        switch next {
        case .ready(let credentials):
            return credentials
        case .wait(let refresh, let stale):
            let result = await refresh.value
            state.withLock { $0.waiting -= 1 }
            switch result {
            case .success(let credentials):
                return credentials
            case .failure(let error):
                if let stale, let expiration = stale.expiration, expiration > now() { return stale }
                throw error
            }
        }
    }
}
