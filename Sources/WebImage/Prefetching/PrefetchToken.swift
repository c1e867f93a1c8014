import Foundation
import WebImageLocking

/// One running prefetch, returned by
/// ``ImagePrefetcher/prefetch(_:progress:completion:)-([ImageRequest],_,_)``: cancel it to
/// stop the requests not yet loaded and the loads in flight. Cancelling one prefetch
/// leaves the prefetcher's other prefetches running.
public final class PrefetchToken: Sendable {
    /// The URLs of this prefetch, in the order given: the URL of each request
    /// (``ImageRequest/url``).
    public var urls: [URL] { requests.urls }
    /// The requests of this prefetch.
    let requests: PrefetchRequests

    private enum Event {
        case progress(PrefetchProgress)
        case completion(PrefetchResult)
    }

    private struct State {
        /// The index of the next URL to start.
        var next = 0
        var finished = 0
        var skipped = 0
        /// This prefetch's places in loads started and not finished, by URL index.
        var running: [Int: ImagePrefetcher.LoadSubscription] = [:]
        var ended = false
        var cancelled = false
        /// Reports not delivered yet, oldest first, and whether a thread is delivering them.
        var outbox: [Event] = []
        var delivering = false
    }

    private let state = Locked(State())
    private let onProgress: (@Sendable (PrefetchProgress) -> Void)?
    private let onCompletion: (@Sendable (PrefetchResult) -> Void)?

    init(
        requests: PrefetchRequests,
        progress: (@Sendable (PrefetchProgress) -> Void)?,
        completion: (@Sendable (PrefetchResult) -> Void)?
    ) {
        self.requests = requests
        self.onProgress = progress
        self.onCompletion = completion
    }

    /// Whether ``cancel()`` was called before the prefetch ended.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Whether the prefetch ended (every URL finished, or it was cancelled).
    public var isFinished: Bool { state.withLock { $0.ended } }

    /// The counts so far.
    public var result: PrefetchResult {
        state.withLock { PrefetchResult(finishedCount: $0.finished, skippedCount: $0.skipped, totalCount: urls.count, isCancelled: $0.cancelled) }
    }

    /// Stops the prefetch: requests not started are dropped, loads in flight are cancelled,
    /// and the completion runs with the counts so far and `isCancelled` (after any
    /// progress report already under way). Nothing is counted after it. Does nothing once
    /// the prefetch ended.
    public func cancel() {
        let subscriptions = state.withLock { state -> [ImagePrefetcher.LoadSubscription]? in
            guard !state.ended else { return nil }
            state.ended = true
            state.cancelled = true
            state.next = urls.count
            let subscriptions = Array(state.running.values)
            state.running.removeAll()
            state.outbox.append(.completion(
                PrefetchResult(finishedCount: state.finished, skippedCount: state.skipped, totalCount: urls.count, isCancelled: true)
            ))
            return subscriptions
        }
        guard let subscriptions else { return }
        // Each place left completes at once with `cancelled`, which frees its slot; a load
        // no other prefetch waits for stops.
        for subscription in subscriptions { subscription.cancel() }
        deliver()
    }

    /// Delivers queued reports in order, one thread at a time. A report queued while
    /// another thread delivers is delivered by that thread, so callbacks never overlap,
    /// always arrive in counting order, and may call ``cancel()`` without deadlocking.
    private func deliver() {
        let claimed = state.withLock { state -> Bool in
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        guard claimed else { return }
        while true {
            let event = state.withLock { state -> Event? in
                guard !state.outbox.isEmpty else {
                    state.delivering = false
                    return nil
                }
                return state.outbox.removeFirst()
            }
            switch event {
            case .progress(let progress): onProgress?(progress)
            case .completion(let result): onCompletion?(result)
            case nil: return
            }
        }
    }

    // MARK: For the prefetcher

    /// Takes the index of the next request to load, or `nil` when none is left (or the
    /// prefetch ended).
    func takeNext() -> Int? {
        let count = urls.count
        return state.withLock { state in
            guard !state.ended, state.next < count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }

    /// Remembers this prefetch's place in the load of request `index` so that ``cancel()`` can
    /// leave it. A load that already finished (a memory hit completes before it is
    /// returned) is not kept, and a place taken just after a cancel is left at once.
    func track(_ subscription: ImagePrefetcher.LoadSubscription, index: Int) {
        let cancelNow = state.withLock { state -> Bool in
            if state.ended { return true }
            state.running[index] = subscription
            return false
        }
        if cancelNow {
            subscription.cancel()
            return
        }
        // The completion may have run between the load's start and the insertion above.
        if !subscription.holder.sharedWork.isOpen { _ = state.withLock { $0.running.removeValue(forKey: index) } }
    }

    /// Counts the end of request `index`'s load, reports progress, and completes the
    /// prefetch after its last request. Loads ending after a cancel are not counted.
    func finish(index: Int, outcome: Result<CacheType, ImageError>) {
        let counted = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            state.running.removeValue(forKey: index)
            state.finished += 1
            if case .failure = outcome { state.skipped += 1 }
            state.outbox.append(.progress(PrefetchProgress(
                url: urls[index], outcome: outcome, finishedCount: state.finished, skippedCount: state.skipped, totalCount: urls.count
            )))
            if state.finished == urls.count {
                state.ended = true
                state.outbox.append(.completion(PrefetchResult(finishedCount: state.finished, skippedCount: state.skipped, totalCount: urls.count)))
            }
            return true
        }
        if counted { deliver() }
    }

    /// Completes an empty prefetch.
    func finishEmpty() {
        state.withLock { state in
            state.ended = true
            state.outbox.append(.completion(PrefetchResult(finishedCount: 0, skippedCount: 0, totalCount: 0)))
        }
        deliver()
    }
}
