import Foundation
import WebImageLocking

/// Loads lists of images into the cache ahead of need: SDWebImagePrefetcher's counterpart.
///
/// Every load goes through ``manager`` with ``ImageOptions/lowPriority`` (so prefetches
/// wait behind the loads someone is waiting for), at most ``maxConcurrentPrefetchCount``
/// at a time across all of this prefetcher's prefetches. Each prefetch reports progress
/// once per URL, in counting order, and completes once with (finished, skipped), where a
/// skipped URL is one that failed. A new prefetch never cancels an earlier one;
/// each is stopped through its own ``PrefetchToken``.
///
///     let prefetcher = ImagePrefetcher()
///     let result = await prefetcher.prefetch(urls)      // finished, skipped, total
///
/// Three ways in: ``prefetch(_:progress:completion:)`` with callbacks and a token,
/// ``prefetch(_:)->PrefetchResult`` awaiting the result (cancelling the awaiting task cancels the
/// prefetch), and ``progress(of:)``, an `AsyncStream` of progress reports. In an async
/// context, `prefetch(urls)` alone is the awaiting form; pass `progress:` or `completion:`
/// to get a token instead.
public final class ImagePrefetcher: Sendable {
    /// A process-wide prefetcher on ``ImageManager/shared``.
    public static let shared = ImagePrefetcher()

    /// The manager every load goes through.
    public let manager: ImageManager
    /// The options of every load of a prefetch that names none; ``ImageOptions/lowPriority``
    /// is always added.
    public let options: ImageOptions
    /// The context of every load of a prefetch that names none (`nil`: the manager's
    /// default context).
    public let context: ImageContext?

    private struct State {
        var limit: Int
        /// Loads started and not finished, over every prefetch.
        var inFlight = 0
        /// Prefetches with URLs left to start, oldest first: they are served in order.
        var waiting: [PrefetchToken] = []
        /// Prefetches not yet ended, for ``cancelAll()``.
        var active: [ObjectIdentifier: PrefetchToken] = [:]
        /// Whether a thread is starting loads (see `startLoads`).
        var starting = false
    }

    private let state: Locked<State>
    /// The loads running, by URL: prefetches that want one URL at once share its load.
    private let loads = SharedWorkPool<String, SharedWork<CacheType, Never>>()

    /// A prefetch's place in a shared load.
    typealias LoadSubscription = SharedWorkPool<String, SharedWork<CacheType, Never>>.Subscription

    /// Creates a prefetcher loading through `manager`, at most `maxConcurrentPrefetchCount`
    /// images at a time (default 3, as in SDWebImage), with `options` and `context` on
    /// every load.
    public init(
        manager: ImageManager = .shared,
        maxConcurrentPrefetchCount: Int = 3,
        options: ImageOptions = [],
        context: ImageContext? = nil
    ) {
        self.manager = manager
        self.options = options.union(.lowPriority)
        self.context = context
        self.state = Locked(State(limit: max(1, maxConcurrentPrefetchCount)))
    }

    /// The most loads in flight at once, over all of this prefetcher's prefetches (at
    /// least 1). Raising it starts waiting URLs at once; lowering it lets running loads
    /// finish.
    public var maxConcurrentPrefetchCount: Int {
        get { state.withLock { $0.limit } }
        set {
            state.withLock { $0.limit = max(1, newValue) }
            startLoads()
        }
    }

    /// Loads running now, over all prefetches.
    public var inFlightCount: Int { state.withLock { $0.inFlight } }

    // MARK: Prefetching

    /// Prefetches `urls` without callbacks (SDWebImage's `prefetchURLs:`) and returns the
    /// token that cancels it. In an async context `prefetch(urls)` is the awaiting form,
    /// ``prefetch(_:)->PrefetchResult``.
    @discardableResult
    public func prefetch(_ urls: [URL]) -> PrefetchToken {
        prefetch(urls, progress: nil, completion: nil)
    }

    /// Prefetches `urls`, in order, calling `progress` once per finished URL and
    /// `completion` once at the end (at once for an empty list, with (0, 0)). Callbacks
    /// never overlap and may run on any thread; a memory hit may report before this method
    /// returns. Returns the token that cancels this prefetch.
    ///
    /// A trailing closure is `completion`, as in SDWebImage's
    /// `prefetchURLs:progress:completed:`: `prefetcher.prefetch(urls) { result in … }`.
    /// `completion` takes no default so that Swift binds an unlabeled trailing closure to
    /// it rather than to `progress`; pass `nil` for none.
    @discardableResult
    public func prefetch(
        _ urls: [URL],
        progress: (@Sendable (PrefetchProgress) -> Void)? = nil,
        completion: (@Sendable (PrefetchResult) -> Void)?
    ) -> PrefetchToken {
        prefetch(urls, options: options, context: context, progress: progress, completion: completion)
    }

    /// Prefetches `urls` as ``prefetch(_:progress:completion:)`` does, each load with
    /// `options` and `context` instead of the prefetcher's (SDWebImage's
    /// `prefetchURLs:options:context:progress:completed:`): a thumbnail size, a
    /// transformer, other cache tiers for this prefetch alone. ``ImageOptions/lowPriority``
    /// is added (``ImageOptions/highPriority`` in `options` still wins); a `nil` context
    /// is the manager's default context. Prefetches with the same URL share its load only
    /// when their options and context are the same.
    @discardableResult
    public func prefetch(
        _ urls: [URL],
        options: ImageOptions,
        context: ImageContext?,
        progress: (@Sendable (PrefetchProgress) -> Void)? = nil,
        completion: (@Sendable (PrefetchResult) -> Void)?
    ) -> PrefetchToken {
        // The token is looked up by identity when it ends, so it is created first and
        // its completion refers back to this prefetcher weakly.
        let tokenBox = Locked<ObjectIdentifier?>(nil)
        let token = PrefetchToken(urls: urls, options: options.union(.lowPriority), context: context, progress: progress) { [weak self] result in
            if let id = tokenBox.withLock({ $0 }) {
                _ = self?.state.withLock { $0.active.removeValue(forKey: id) }
            }
            completion?(result)
        }
        guard !urls.isEmpty else {
            token.finishEmpty()
            return token
        }
        let id = ObjectIdentifier(token)
        tokenBox.withLock { $0 = id }
        state.withLock { state in
            state.active[id] = token
            state.waiting.append(token)
        }
        startLoads()
        // A prefetch cancelled or finished before it was registered leaves no entry behind.
        if token.isFinished { _ = state.withLock { $0.active.removeValue(forKey: id) } }
        return token
    }

    /// Prefetches `urls` and returns how it went. Cancelling the calling task cancels the
    /// prefetch, which then returns with ``PrefetchResult/isCancelled``.
    public func prefetch(_ urls: [URL]) async -> PrefetchResult {
        await prefetch(urls, options: options, context: context)
    }

    /// Prefetches `urls` with `options` and `context` instead of the prefetcher's (see
    /// ``prefetch(_:options:context:progress:completion:)``) and returns how it went.
    /// Cancelling the calling task cancels the prefetch.
    public func prefetch(_ urls: [URL], options: ImageOptions, context: ImageContext?) async -> PrefetchResult {
        let link = CancellationLink<PrefetchToken>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PrefetchResult, Never>) in
                let token = prefetch(urls, options: options, context: context, progress: nil) { continuation.resume(returning: $0) }
                link.attach(token) { $0.cancel() }
            }
        } onCancel: {
            link.cancel { $0.cancel() }
        }
    }

    /// Prefetches `urls`, yielding one report per finished URL; the stream ends when the
    /// prefetch does. Ending the iteration early (or cancelling its task) cancels the
    /// prefetch. The last report holds the final (finished, skipped) counts; an empty list
    /// gives an empty stream.
    public func progress(of urls: [URL]) -> AsyncStream<PrefetchProgress> {
        AsyncStream { continuation in
            let token = prefetch(urls, progress: { continuation.yield($0) }, completion: { _ in continuation.finish() })
            continuation.onTermination = { _ in token.cancel() }
        }
    }

    /// Cancels every prefetch of this prefetcher.
    public func cancelAll() {
        let tokens = state.withLock { Array($0.active.values) }
        for token in tokens { token.cancel() }
    }

    // MARK: Scheduling

    /// Starts waiting URLs while slots are free. One thread at a time does it; a call made
    /// meanwhile (a load that completed at once, a freed slot) is picked up by that thread's
    /// next turn, so memory hits never recurse, however long the list.
    private func startLoads() {
        let claimed = state.withLock { state -> Bool in
            guard !state.starting else { return false }
            state.starting = true
            return true
        }
        guard claimed else { return }
        while let (token, index, url) = nextLoad() {
            let key = Self.loadKey(url, options: token.options, context: token.context)
            let subscription = loads.join(key, progress: nil, completion: { [weak self] outcome in
                // The slot is freed before the token hears of the end: a prefetch that
                // completes with this load must not find it still counted in flight.
                self?.releaseSlot()
                token.finish(index: index, outcome: outcome)
                self?.startLoads()
            }, make: { SharedWork<CacheType, Never>() })
            if subscription.isNew { startLoad(of: url, options: token.options, context: token.context, key: key, for: subscription.holder) }
            token.track(subscription, index: index)
        }
    }

    /// The key under which prefetches share a load: the URL, the options and the context.
    /// A context is named by its storage, which the tokens waiting for the load keep
    /// alive, so a name is never reused while the load runs.
    private static func loadKey(_ url: URL, options: ImageOptions, context: ImageContext?) -> String {
        let contextName = context.map { "\(UInt(bitPattern: $0.storageIdentity))" } ?? "default"
        return url.absoluteString + "|\(options.rawValue)|" + contextName
    }

    /// Loads `url` through the manager for the prefetches sharing `work`; the load is
    /// cancelled when every one of them has left.
    private func startLoad(
        of url: URL, options: ImageOptions, context: ImageContext?, key: String, for work: SharedWork<CacheType, Never>
    ) {
        let task = manager.loadImage(with: url, options: options, context: context) { [weak self] result in
            if case .success(let value) = result, !value.isFinal { return }
            self?.loads.retire(key, work)
            work.finish(result.map(\.cacheType))
        }
        work.onAbandon { task.cancel() }
    }

    /// The next URL to load when a slot is free, taking the slot; otherwise `nil`, and the
    /// calling thread stops starting loads.
    private func nextLoad() -> (PrefetchToken, Int, URL)? {
        state.withLock { state -> (PrefetchToken, Int, URL)? in
            while state.inFlight < state.limit, let token = state.waiting.first {
                if let (index, url) = token.takeNext() {
                    state.inFlight += 1
                    return (token, index, url)
                }
                state.waiting.removeFirst()
            }
            state.starting = false
            return nil
        }
    }

    private func releaseSlot() {
        state.withLock { $0.inFlight -= 1 }
    }
}
