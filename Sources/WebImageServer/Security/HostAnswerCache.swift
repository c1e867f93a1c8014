import WebImage
import WebImageLocking

/// Successful DNS answers kept for a short lifetime, so that fetches from one host share
/// a lookup; failures are not kept.
///
/// Keeping an answer leaves the rebinding guarantee whole: the source guard checks every
/// address of the answer it is given, kept or new, and the downloader connects only to the
/// address it approved. A host whose answer changes is seen with the new answer once the
/// kept one expires.
final class HostAnswerCache: Sendable {
    private struct Answer {
        let addresses: [IPAddress]
        let expires: ContinuousClock.Instant
    }

    /// How long an answer is used before the host is looked up again.
    let lifetime: Duration
    /// Hosts whose answers are kept at most: when full, expired answers are dropped, and
    /// if none has expired, all of them.
    let maxHosts: Int
    private let lookUp: @Sendable (String) async throws(ImageError) -> [IPAddress]
    private let answers = InlineLocked<[String: Answer]>([:])

    /// Creates a cache over `lookUp`, the real lookup.
    init(lifetime: Duration, maxHosts: Int, lookUp: @escaping @Sendable (String) async throws(ImageError) -> [IPAddress]) {
        self.lifetime = lifetime
        self.maxHosts = max(1, maxHosts)
        self.lookUp = lookUp
    }

    /// The kept answer for `host` while it is fresh, else a new lookup (kept when it succeeds).
    func resolve(_ host: String) async throws(ImageError) -> [IPAddress] {
        let now = ContinuousClock.now
        if let kept = answers.withLock({ $0[host] }), kept.expires > now { return kept.addresses }
        let addresses = try await lookUp(host)
        let answer = Answer(addresses: addresses, expires: ContinuousClock.now + lifetime)
        answers.withLock { answers in
            if answers[host] == nil, answers.count >= maxHosts {
                answers = answers.filter { $0.value.expires > now }
                if answers.count >= maxHosts { answers.removeAll(keepingCapacity: true) }
            }
            answers[host] = answer
        }
        return addresses
    }

    /// Hosts with an answer kept, fresh or not.
    var count: Int { answers.withLock { $0.count } }
}
