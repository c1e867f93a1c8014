import Foundation
import WebImageLocking

/// Loads lists of images into the cache ahead of need: SDWebImagePrefetcher's counterpart.
///
/// A prefetch is a list of ``ImageRequest``s, each loaded through ``manager``
/// (``ImageManager/loadImage(_:progress:completion:)``), at most
/// ``maxConcurrentPrefetchCount`` at a time across all of this prefetcher's prefetches.
/// Each prefetch reports progress once per request, in counting order, and completes
/// once with (finished, skipped), where a skipped request is one that failed. A new
/// prefetch never cancels an earlier one; each is stopped through its own
/// ``PrefetchToken``.
///
///     let prefetcher = ImagePrefetcher(manager: manager)
///     let thumbnails = urls.map { url in
///         ImageRequest(url: url, processing: ImageProcessing(thumbnailPixelSize: PixelSize(width: 200, height: 200)), priority: .low)
///     }
///     let result = await prefetcher.prefetch(thumbnails)   // finished, skipped, total
///
/// A request is loaded as it is, at its own ``ImageRequest/priority``: give it
/// ``DownloadPriority/low`` so that prefetches wait behind the loads someone is waiting
/// for. A list of URLs (``prefetch(_:progress:completion:)-([URL],_,_)``, SDWebImage's
/// `prefetchURLs:`) is loaded with the requests ``request(for:)`` makes: the manager's
/// request for each URL at low priority, with ``options`` and ``context``.
///
/// Three ways in, for requests as for URLs:
/// ``prefetch(_:progress:completion:)-([ImageRequest],_,_)`` with callbacks and a token,
/// ``prefetch(_:)-([ImageRequest])->PrefetchResult`` awaiting the result (cancelling the
/// awaiting task cancels the prefetch), and ``progress(of:)-([ImageRequest])``, an
/// `AsyncStream` of progress reports. In an async context, `prefetch(requests)` alone is the
/// awaiting form; pass `progress:` or `completion:` to get a token instead.
///
/// ## Shared loads
///
/// Prefetches that want the same request at once share its load: it is loaded once, each
/// of them hears how it ended, and it stops only when every one of them has cancelled.
/// Requests are the same when every field is equal (a transformer by its key, a cache,
/// loader or coder by identity); a request with a closure (a key filter, a serializer, a
/// modifier, a decryptor, a callback executor) cannot be compared, so it shares its load
/// only with the requests made for the same URL from the same options and context.
public final class ImagePrefetcher: Sendable {
    /// A process-wide prefetcher on ``ImageManager/shared``.
    public static let shared = ImagePrefetcher()

    /// The manager every load goes through.
    public let manager: ImageManager
    /// The options and context the requests of a list of URLs are made with
    /// (ImagePrefetcher+SDWebImage.swift).
    let urlSettings: SDWebImagePrefetchSettings

    private struct State {
        var limit: Int
        /// Loads started and not finished, over every prefetch.
        var inFlight = 0
        /// Prefetches with requests left to start, oldest first: they are served in order.
        var waiting: [PrefetchToken] = []
        /// Prefetches not yet ended, for ``cancelAll()``.
        var active: [ObjectIdentifier: PrefetchToken] = [:]
        /// Whether a thread is starting loads (see `startLoads`).
        var starting = false
    }

    private let state: Locked<State>
    /// The loads running, by request: prefetches that want one request at once share its load.
    private let loads = SharedWorkPool<PrefetchLoadKey, SharedWork<CacheType, Never>>()

    /// A prefetch's place in a shared load.
    typealias LoadSubscription = SharedWorkPool<PrefetchLoadKey, SharedWork<CacheType, Never>>.Subscription

    /// Creates a prefetcher loading through `manager`, at most `maxConcurrentPrefetchCount`
    /// images at a time (default 3, as in SDWebImage). A list of URLs is loaded with the
    /// manager's request for each URL at low priority (``request(for:)``).
    public convenience init(manager: ImageManager = .shared, maxConcurrentPrefetchCount: Int = 3) {
        self.init(manager: manager, maxConcurrentPrefetchCount: maxConcurrentPrefetchCount, urlSettings: SDWebImagePrefetchSettings())
    }

    /// Creates a prefetcher whose lists of URLs are loaded with `urlSettings`.
    init(manager: ImageManager, maxConcurrentPrefetchCount: Int, urlSettings: SDWebImagePrefetchSettings) {
        self.manager = manager
        self.urlSettings = urlSettings
        self.state = Locked(State(limit: max(1, maxConcurrentPrefetchCount)))
    }

    /// The most loads in flight at once, over all of this prefetcher's prefetches (at
    /// least 1). Raising it starts waiting requests at once; lowering it lets running
    /// loads finish.
    public var maxConcurrentPrefetchCount: Int {
        get { state.withLock { $0.limit } }
        set {
            state.withLock { $0.limit = max(1, newValue) }
            startLoads()
        }
    }

    /// Loads running now, over all prefetches.
    public var inFlightCount: Int { state.withLock { $0.inFlight } }

    // MARK: Prefetching requests

    /// Prefetches `requests` without callbacks and returns the token that cancels it. In
    /// an async context `prefetch(requests)` is the awaiting form,
    /// ``prefetch(_:)-([ImageRequest])->PrefetchResult``.
    @discardableResult
    public func prefetch(_ requests: [ImageRequest]) -> PrefetchToken {
        prefetch(requests, progress: nil, completion: nil)
    }

    /// Prefetches `requests`, in order, calling `progress` once per finished request and
    /// `completion` once at the end (at once for an empty list, with (0, 0)). Callbacks
    /// never overlap and may run on any thread; a memory hit may report before this
    /// method returns. Returns the token that cancels this prefetch.
    ///
    /// Each request is loaded as it is, at its own ``ImageRequest/priority``. A request
    /// whose output is not an image (``ImageOutput/isImage``) fails with
    /// ``ImageError/invalidRequest(field:reason:)``, as ``ImageManager/loadImage(_:progress:completion:)``
    /// fails it.
    ///
    /// A trailing closure is `completion`: `prefetcher.prefetch(requests) { result in … }`.
    /// `completion` takes no default so that Swift binds an unlabeled trailing closure to
    /// it rather than to `progress`; pass `nil` for none.
    @discardableResult
    public func prefetch(
        _ requests: [ImageRequest],
        progress: (@Sendable (PrefetchProgress) -> Void)? = nil,
        completion: (@Sendable (PrefetchResult) -> Void)?
    ) -> PrefetchToken {
        prefetch(PrefetchRequests(requests), progress: progress, completion: completion)
    }

    /// Prefetches `requests` and returns how it went. Cancelling the calling task cancels
    /// the prefetch, which then returns with ``PrefetchResult/isCancelled``.
    public func prefetch(_ requests: [ImageRequest]) async -> PrefetchResult {
        await prefetch(PrefetchRequests(requests))
    }

    /// Prefetches `requests`, yielding one report per finished request; the stream ends
    /// when the prefetch does. Ending the iteration early (or cancelling its task) cancels
    /// the prefetch. The last report holds the final (finished, skipped) counts; an empty
    /// list gives an empty stream.
    public func progress(of requests: [ImageRequest]) -> AsyncStream<PrefetchProgress> {
        progress(of: PrefetchRequests(requests))
    }

    /// Cancels every prefetch of this prefetcher.
    public func cancelAll() {
        let tokens = state.withLock { Array($0.active.values) }
        for token in tokens { token.cancel() }
    }

    // MARK: Every way in

    /// Prefetches `requests` (see ``prefetch(_:progress:completion:)-([ImageRequest],_,_)``).
    func prefetch(
        _ requests: PrefetchRequests,
        progress: (@Sendable (PrefetchProgress) -> Void)?,
        completion: (@Sendable (PrefetchResult) -> Void)?
    ) -> PrefetchToken {
        // The token is looked up by identity when it ends, so it is created first and
        // its completion refers back to this prefetcher weakly.
        let tokenBox = Locked<ObjectIdentifier?>(nil)
        let token = PrefetchToken(requests: requests, progress: progress) { [weak self] result in
            if let id = tokenBox.withLock({ $0 }) {
                _ = self?.state.withLock { $0.active.removeValue(forKey: id) }
            }
            completion?(result)
        }
        guard !requests.isEmpty else {
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

    /// Prefetches `requests` and returns how it went; cancelling the calling task cancels
    /// the prefetch.
    func prefetch(_ requests: PrefetchRequests) async -> PrefetchResult {
        let link = CancellationLink<PrefetchToken>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PrefetchResult, Never>) in
                let token = prefetch(requests, progress: nil) { continuation.resume(returning: $0) }
                link.attach(token) { $0.cancel() }
            }
        } onCancel: {
            link.cancel { $0.cancel() }
        }
    }

    /// Prefetches `requests`, yielding one report per finished request.
    func progress(of requests: PrefetchRequests) -> AsyncStream<PrefetchProgress> {
        AsyncStream { continuation in
            let token = prefetch(requests, progress: { continuation.yield($0) }, completion: { _ in continuation.finish() })
            continuation.onTermination = { _ in token.cancel() }
        }
    }

    // MARK: Scheduling

    /// Starts waiting requests while slots are free. One thread at a time does it; a call
    /// made meanwhile (a load that completed at once, a freed slot) is picked up by that
    /// thread's next turn, so memory hits never recurse, however long the list.
    private func startLoads() {
        let claimed = state.withLock { state -> Bool in
            guard !state.starting else { return false }
            state.starting = true
            return true
        }
        guard claimed else { return }
        while let (token, index) = nextLoad() {
            let request: ImageRequest
            let key: PrefetchLoadKey
            switch token.requests.request(at: index) {
            case .success(let made):
                (request, key) = made
            case .failure(let error):
                // A request that cannot be made fails its place at once.
                releaseSlot()
                token.finish(index: index, outcome: .failure(error))
                continue
            }
            let subscription = loads.join(key, progress: nil, completion: { [weak self] outcome in
                // The slot is freed before the token hears of the end: a prefetch that
                // completes with this load must not find it still counted in flight.
                self?.releaseSlot()
                token.finish(index: index, outcome: outcome)
                self?.startLoads()
            }, make: { SharedWork<CacheType, Never>() })
            if subscription.isNew { startLoad(request, key: key, of: token.requests, for: subscription.holder) }
            token.track(subscription, index: index)
        }
    }

    /// Loads `request` through the manager for the prefetches sharing `work`; the load is
    /// cancelled when every one of them has left. The load holds `requests`, the
    /// prefetch's list the request comes from, so that what its key names by identity
    /// outlives it.
    private func startLoad(_ request: ImageRequest, key: PrefetchLoadKey, of requests: PrefetchRequests, for work: SharedWork<CacheType, Never>) {
        let task = manager.loadImage(request) { [weak self] result in
            if case .success(let value) = result, !value.isFinal { return }
            withExtendedLifetime(requests) {
                self?.loads.retire(key, work)
                work.finish(result.map(\.cacheType))
            }
        }
        work.onAbandon { task.cancel() }
    }

    /// The next request to load when a slot is free, taking the slot; otherwise `nil`, and
    /// the calling thread stops starting loads.
    private func nextLoad() -> (PrefetchToken, Int)? {
        state.withLock { state -> (PrefetchToken, Int)? in
            while state.inFlight < state.limit, let token = state.waiting.first {
                if let index = token.takeNext() {
                    state.inFlight += 1
                    return (token, index)
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
