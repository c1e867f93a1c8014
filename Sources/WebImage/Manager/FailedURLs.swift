import Foundation
import OrderedCollections
import Synchronization
import WebImageLocking

/// URLs that failed permanently, blocked for a while so that a broken image is not
/// fetched again and again (SDWebImage's `failedURLs`, made fit for a server).
///
/// SDWebImage blocks a failed URL for the life of the process; a server lives for
/// months. Here an entry expires after ``ttl``, the set holds at most ``capacity``
/// URLs (the oldest failure is dropped first), and by default only permanent failures
/// block: see ``ImageError/blocksURL``, and ``ImageManager/shouldBlockFailedURL`` for a
/// rule of your own.
public final class FailedURLs: Sendable {
    /// How long a failure blocks its URL.
    public let ttl: Duration
    /// The most URLs remembered.
    public let capacity: Int

    private let clock: @Sendable () -> ContinuousClock.Instant
    private let entries = Locked<OrderedDictionary<String, ContinuousClock.Instant>>([:])
    /// The number of entries, readable without the lock: with none (the usual case), a
    /// memory hit asks nothing more of this set.
    private let entryCount = Atomic<Int>(0)

    /// Creates an empty set; by default a failure blocks for 10 minutes and 10,000 URLs are kept.
    public convenience init(ttl: Duration = .seconds(600), capacity: Int = 10_000) {
        self.init(ttl: ttl, capacity: capacity, clock: { ContinuousClock.now })
    }

    init(ttl: Duration, capacity: Int, clock: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.ttl = ttl
        self.capacity = max(1, capacity)
        self.clock = clock
    }

    /// Whether `url` is blocked now. An expired entry is dropped.
    public func isBlocked(_ url: URL) -> Bool {
        guard entryCount.load(ordering: .relaxed) > 0 else { return false }
        return isRecentFailure(url)
    }

    // Out of line: inlined, its clock and dictionary work would weigh on every memory
    // hit's code (and frame), though a hit rarely gets this far.
    @inline(never)
    private func isRecentFailure(_ url: URL) -> Bool {
        let key = url.absoluteString
        let now = clock()
        return entries.withLock { entries in
            guard let failedAt = entries[key] else { return false }
            if now - failedAt >= ttl {
                entries.removeValue(forKey: key)
                entryCount.store(entries.count, ordering: .relaxed)
                return false
            }
            return true
        }
    }

    /// Records that loading `url` failed with `error`; blocks it only when the error is permanent.
    /// Returns whether the URL is now blocked.
    @discardableResult
    public func record(_ url: URL, error: ImageError) -> Bool {
        guard error.blocksURL else { return false }
        block(url)
        return true
    }

    /// Blocks `url` for ``ttl`` from now, whatever made it fail: what a manager's
    /// ``ImageManager/shouldBlockFailedURL`` rule decided.
    public func block(_ url: URL) {
        let key = url.absoluteString
        let now = clock()
        entries.withLock { entries in
            entries.removeValue(forKey: key)
            entries[key] = now
            if entries.count > capacity {
                entries.removeFirst(entries.count - capacity)
            }
            entryCount.store(entries.count, ordering: .relaxed)
        }
    }

    /// Unblocks `url`.
    public func remove(_ url: URL) {
        entries.withLock { entries in
            entries.removeValue(forKey: url.absoluteString)
            entryCount.store(entries.count, ordering: .relaxed)
        }
    }

    /// Unblocks every URL.
    public func removeAll() {
        entries.withLock { entries in
            entries.removeAll()
            entryCount.store(0, ordering: .relaxed)
        }
    }

    /// URLs currently remembered (expired ones included until they are looked up).
    public var count: Int { entries.withLock { $0.count } }
}

extension ImageError {
    /// Whether this failure says something permanent about the URL, so that it should be
    /// blocked for a while: the data is not an image, the server says it does not exist,
    /// or the image breaks a limit. Timeouts, network trouble, cancellation, server
    /// errors (5xx) and rate limiting never block: they say nothing about the URL.
    public var blocksURL: Bool {
        switch self {
        case .badImageData, .invalidURL, .invalidContentType, .imageTooLarge,
             .bodyTooLarge, .untrustedFormat, .notFound:
            return true
        case .invalidStatusCode(let code):
            return (400..<500).contains(code) && ![401, 407, 408, 425, 429].contains(code)
        case .cancelled, .timedOut, .network, .cacheNotModified, .blockedURL, .invalidResponse,
             .invalidDownloadOperation, .encodingFailed, .fileSizeLimitUnreachable, .cacheFailure, .notInCache,
             .invalidTransform, .forbiddenSource, .overloaded, .invalidRequest, .accessDenied, .credentialsUnavailable,
             .memoryBudgetExceeded:
            // A refused source says something about the server's policy, not the URL.
            return false
        }
    }
}
