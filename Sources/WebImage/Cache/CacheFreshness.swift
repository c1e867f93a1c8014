import Foundation

/// How long a cached entry is used as it is, without asking its source again: the rule of
/// every disk hit (an original, a processed image, an encoded variant) and of every
/// variant held in memory.
///
/// An entry is fresh until its expiry, and stale after it. A stale entry is revalidated
/// with its `ETag` / `Last-Modified` before it is used: a `304 Not Modified` renews it for
/// the lifetime it was stored with, anything else replaces it. Within
/// ``staleWhileRevalidate`` past its expiry it is served at once instead, while it is
/// revalidated in the background.
///
/// The expiry comes from the source (``followsSource``: `Cache-Control: max-age` or
/// `s-maxage`, `no-cache` and `no-store` making it stale at once, else `Expires`), else
/// from ``defaultMaxAge`` after the entry was stored; ``maxAge`` bounds either. An entry
/// without an expiry is fresh until the cache evicts it.
///
///     var config = CacheConfig()
///     config.freshness = CacheFreshness(defaultMaxAge: .seconds(3600), maxAge: .seconds(86_400))
///
/// Decoded images held in memory are not judged by this rule: they live as the memory
/// tier keeps them, and ``ImageRequest/Options/refreshCached`` skips them.
public struct CacheFreshness: Sendable, Hashable {
    /// Whether the source's `Cache-Control` and `Expires` set an entry's expiry. Default `true`.
    public var followsSource: Bool
    /// The lifetime of an entry whose expiry the source does not set (or when it is not
    /// followed), from the time it was stored; `nil` (the default): fresh until evicted.
    public var defaultMaxAge: Duration?
    /// The longest lifetime of any entry, from the time it was stored, whatever the source
    /// says; `nil` (the default): no bound. `.zero` revalidates every entry on every use.
    public var maxAge: Duration?
    /// How long past its expiry a stale entry is served at once while it is revalidated in
    /// the background; a source's `stale-while-revalidate` takes the place of this window
    /// when the source names one. `nil` (the default): a stale entry is always revalidated
    /// first.
    public var staleWhileRevalidate: Duration?

    /// Creates a rule.
    public init(followsSource: Bool = true, defaultMaxAge: Duration? = nil, maxAge: Duration? = nil, staleWhileRevalidate: Duration? = nil) {
        self.followsSource = followsSource
        self.defaultMaxAge = defaultMaxAge
        self.maxAge = maxAge
        self.staleWhileRevalidate = staleWhileRevalidate
    }

    /// The source's expiry, else none: an entry is used until the source says it is stale.
    public static let `default` = CacheFreshness()

    /// Every entry fresh until evicted, whatever its source says: nothing is revalidated
    /// unless a request asks with a rule of its own.
    public static let untilEvicted = CacheFreshness(followsSource: false)

    /// Every entry stale: each use revalidates it first.
    public static let always = CacheFreshness(maxAge: .zero)

    /// What an entry's freshness means for its use at a moment.
    public enum State: Sendable, Hashable {
        /// Used as it is.
        case fresh
        /// Past its expiry but within the stale window: served, and revalidated in the
        /// background.
        case servableWhileRevalidating
        /// Revalidated before it is used.
        case stale
    }

    /// When an entry stored with `metadata` stops being fresh; `nil`: never.
    public func expiry(of metadata: CacheMetadata) -> Date? {
        expiry(sourceExpiry: metadata.expirationDate, storedDate: metadata.storedDate)
    }

    /// When an entry stored at `storedDate`, whose source said it expires at
    /// `sourceExpiry`, stops being fresh; `nil`: never.
    public func expiry(sourceExpiry: Date?, storedDate: Date) -> Date? {
        var expiry = followsSource ? sourceExpiry : nil
        if expiry == nil, let defaultMaxAge {
            expiry = storedDate.addingTimeInterval(defaultMaxAge.timeInterval)
        }
        if let maxAge {
            let bound = storedDate.addingTimeInterval(maxAge.timeInterval)
            expiry = min(expiry ?? bound, bound)
        }
        return expiry
    }

    /// The state of an entry stored with `metadata` at `now`.
    public func state(of metadata: CacheMetadata, at now: Date) -> State {
        state(of: metadata) { now }
    }

    /// Whether an entry stored with `metadata` is fresh at `now`.
    public func isFresh(_ metadata: CacheMetadata, at now: Date) -> Bool {
        isFresh(metadata) { now }
    }

    /// Whether an entry stored with `metadata` has an expiry and is still before it at
    /// `now`: fresh for certain, where an entry without an expiry is only not known to be
    /// stale (``ImageRequest/Options/refreshCached`` revalidates those).
    public func isKnownFresh(_ metadata: CacheMetadata, at now: Date) -> Bool {
        guard let expiry = expiry(of: metadata) else { return false }
        return now < expiry
    }

    /// The state of an entry stored with `metadata`, reading the clock only when the entry
    /// has an expiry: most entries have none, and their hits never read it.
    func state(of metadata: CacheMetadata, clock now: () -> Date) -> State {
        guard let expiry = expiry(of: metadata) else { return .fresh }
        let now = now()
        guard now >= expiry else { return .fresh }
        guard let window = staleWindow(of: metadata) else { return .stale }
        return now < expiry.addingTimeInterval(window) ? .servableWhileRevalidating : .stale
    }

    /// Whether an entry stored with `metadata` is fresh, reading the clock only when it has
    /// an expiry.
    func isFresh(_ metadata: CacheMetadata, clock now: () -> Date) -> Bool {
        isFresh(sourceExpiry: metadata.expirationDate, storedDate: metadata.storedDate, clock: now)
    }

    /// Whether an entry stored at `storedDate`, whose source said it expires at
    /// `sourceExpiry`, is fresh, reading the clock only when it has an expiry.
    func isFresh(sourceExpiry: Date?, storedDate: Date, clock now: () -> Date) -> Bool {
        guard let expiry = expiry(sourceExpiry: sourceExpiry, storedDate: storedDate) else { return true }
        return now() < expiry
    }

    /// The stale window in seconds: the source's `stale-while-revalidate` when it names
    /// one and is followed, else ``staleWhileRevalidate``; `nil` when stale entries are
    /// not served.
    private func staleWindow(of metadata: CacheMetadata) -> TimeInterval? {
        guard let staleWhileRevalidate else { return nil }
        if followsSource, let control = metadata.cacheControl ?? metadata.sourceCacheControl,
           let seconds = CacheControl(control).seconds(of: "stale-while-revalidate") {
            return seconds
        }
        return staleWhileRevalidate.timeInterval
    }
}
