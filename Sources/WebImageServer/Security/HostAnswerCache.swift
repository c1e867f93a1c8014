import WebImage
import WebImageLocking

/// DNS answers kept for a short lifetime, failures for a shorter one, and one lookup in
/// flight per host: fetches from one host share a lookup, and a name that fails (no such
/// host, or servers that do not answer) costs one lookup every few seconds however many
/// requests name it.
///
/// Keeping an answer leaves the rebinding guarantee whole: the source guard checks every
/// address of the answer it is given, kept or new, and the downloader connects only to the
/// address it approved. A host whose answer changes is seen with the new answer once the
/// kept one expires.
final class HostAnswerCache: Sendable {
    private enum Entry {
        case answer([IPAddress], expires: ContinuousClock.Instant)
        case failure(ImageError, expires: ContinuousClock.Instant)
        /// The lookup in flight, which every resolution of the host waits for.
        case pending(Task<Result<[IPAddress], ImageError>, Never>)

        func isFresh(at now: ContinuousClock.Instant) -> Bool {
            switch self {
            case .answer(_, let expires), .failure(_, let expires): expires > now
            case .pending: true
            }
        }
    }

    /// How long an answer is used before the host is looked up again.
    let lifetime: Duration
    /// How long a failed lookup is answered again before the host is looked up again.
    let failureLifetime: Duration
    /// Hosts whose answers are kept at most: when full, expired entries are dropped, and
    /// if none has expired, every entry but the lookups in flight.
    let maxHosts: Int
    private let lookUp: @Sendable (String) async throws(ImageError) -> [IPAddress]
    private let entries = InlineLocked<[String: Entry]>([:])

    /// Creates a cache over `lookUp`, the real lookup.
    init(
        lifetime: Duration, failureLifetime: Duration = .seconds(5), maxHosts: Int,
        lookUp: @escaping @Sendable (String) async throws(ImageError) -> [IPAddress]
    ) {
        self.lifetime = lifetime
        self.failureLifetime = failureLifetime
        self.maxHosts = max(1, maxHosts)
        self.lookUp = lookUp
    }

    /// The kept answer (or failure) for `host` while it is fresh, the lookup in flight for
    /// it, or a new lookup.
    func resolve(_ host: String) async throws(ImageError) -> [IPAddress] {
        let now = ContinuousClock.now
        let step = entries.withLock { entries -> Step in
            switch entries[host] {
            case .answer(let addresses, let expires) where expires > now:
                return .done(.success(addresses))
            case .failure(let error, let expires) where expires > now:
                return .done(.failure(error))
            case .pending(let task):
                return .wait(task)
            default:
                if entries[host] == nil, entries.count >= maxHosts {
                    entries = entries.filter { $0.value.isFresh(at: now) }
                    if entries.count >= maxHosts {
                        entries = entries.filter { if case .pending = $0.value { true } else { false } }
                    }
                }
                let task = Task { [lookUp] () -> Result<[IPAddress], ImageError> in
                    let result: Result<[IPAddress], ImageError>
                    do throws(ImageError) {
                        result = .success(try await lookUp(host))
                    } catch {
                        result = .failure(error)
                    }
                    self.keep(result, for: host)
                    return result
                }
                entries[host] = .pending(task)
                return .wait(task)
            }
        }
        switch step {
        case .done(let result): return try result.get()
        case .wait(let task): return try await task.value.get()
        }
    }

    private enum Step {
        case done(Result<[IPAddress], ImageError>)
        case wait(Task<Result<[IPAddress], ImageError>, Never>)
    }

    private func keep(_ result: Result<[IPAddress], ImageError>, for host: String) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            switch result {
            case .success(let addresses): entries[host] = .answer(addresses, expires: now + lifetime)
            case .failure(let error): entries[host] = .failure(error, expires: now + failureLifetime)
            }
        }
    }

    /// Hosts with an entry kept, fresh or not, lookups in flight included.
    var count: Int { entries.withLock { $0.count } }
}
