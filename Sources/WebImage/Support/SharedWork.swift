import Foundation
import WebImageLocking

/// Work that several subscribers share — the library's one join-and-cancel mechanism
/// (Nuke's `AsyncTask` is the model), behind the downloader's coalescing, the manager's
/// loads, transforms and encoded variants, and the prefetcher (usually through a
/// ``SharedWorkPool``, which joins by key).
///
/// - Each subscriber joins with its own progress handler and completion.
/// - A subscriber that leaves (``unsubscribe(_:)``) completes at once with
///   ``ImageError/cancelled``; the others are not affected.
/// - When the last subscriber leaves before the end, the work is abandoned: its task is
///   cancelled and its abandon handler runs (a queued transfer is taken out of its queue) —
///   unless it was made to keep running without subscribers, to finish and cache a result
///   nobody waits for any more. Such work may have a ``BackgroundDeadline``: still running
///   that long after its last subscriber left, it is abandoned, and the deadline's
///   handler is told.
/// - Every subscriber completes exactly once, in the order it joined; nobody can join
///   work that ended, so a late caller starts new work.
///
/// Progress goes to every subscriber with a handler, at most once per `progressInterval`
/// each, except the first report and the last.
///
/// Work with a ``priority`` runs at the highest priority of those waiting for it: each
/// subscriber's priority (the current load's, by default) is linked into it until the
/// subscriber leaves or the work ends.
final class SharedWork<Value: Sendable, Progress: Sendable>: Sendable {
    typealias Completion = @Sendable (Result<Value, ImageError>) -> Void
    typealias ProgressHandler = @Sendable (Progress) -> Void

    private struct Subscriber {
        let id: Int
        let progress: ProgressHandler?
        let completion: Completion
        /// The subscriber's priority linked into the work's.
        let link: SharedPriority.Link?
        var lastReport: ContinuousClock.Instant?
        var lastPosition = -1
    }

    private enum Phase {
        case open, abandoned, finished
    }

    private struct State {
        /// In the order they joined (ids increase); an array, as most work has one subscriber.
        var subscribers: [Subscriber] = []
        var nextID = 0
        var phase = Phase.open
        var task: Task<Void, Never>?
        /// Run once when the work is abandoned; dropped when the work ends, so that they
        /// can refer to the work's owner without keeping it.
        var onAbandoned: [@Sendable () -> Void] = []
        /// Run once when the work ends, finished or abandoned.
        var onEnd: (@Sendable () -> Void)?
        /// Counts the times the last subscriber left work that keeps running, so that a
        /// background deadline only expires work that stayed without subscribers since.
        var orphanings = 0

        /// Where subscriber `id` is, found by bisection (ids increase).
        func index(of id: Int) -> Int? {
            var low = 0, high = subscribers.count
            while low < high {
                let middle = (low + high) / 2
                if subscribers[middle].id < id { low = middle + 1 } else { high = middle }
            }
            return low < subscribers.count && subscribers[low].id == id ? low : nil
        }
    }

    private let state: InlineLocked<State>
    /// The shortest time between two progress reports to one subscriber.
    let progressInterval: Duration
    /// Whether the work goes on to its end when every subscriber has left (it stays open,
    /// so a new caller joins it) instead of being abandoned.
    let keepsRunningWithoutSubscribers: Bool
    /// How long work that keeps running without subscribers may go on so; `nil`: to its end.
    let backgroundDeadline: BackgroundDeadline?
    /// The priority the work runs at, which its subscribers' priorities hold up; `nil`:
    /// the work has none.
    let priority: SharedPriority?

    /// Creates open work without subscribers.
    init(
        progressInterval: Duration = .zero, keepsRunningWithoutSubscribers: Bool = false, backgroundDeadline: BackgroundDeadline? = nil,
        priority: SharedPriority? = nil
    ) {
        self.priority = priority
        self.progressInterval = progressInterval
        self.keepsRunningWithoutSubscribers = keepsRunningWithoutSubscribers
        self.backgroundDeadline = keepsRunningWithoutSubscribers ? backgroundDeadline : nil
        state = InlineLocked(State())
    }

    /// Sets what runs once when the work ends, finished or abandoned (after the
    /// subscribers' completions); the work must still be open.
    func setOnEnd(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onEnd = handler }
    }

    /// Adds what abandoning the work does besides cancelling its task; it runs at once if
    /// the work was already abandoned, and never if the work finishes.
    func onAbandon(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            switch state.phase {
            case .open:
                state.onAbandoned.append(handler)
                return false
            case .abandoned: return true
            case .finished: return false
            }
        }
        if runNow { handler() }
    }

    /// Whether subscribers can still join (the work has neither finished nor been abandoned).
    var isOpen: Bool { state.withLock { $0.phase == .open } }

    /// Whether every subscriber left before the work ended.
    var isAbandoned: Bool { state.withLock { $0.phase == .abandoned } }

    /// Subscribers waiting for the result.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Adds a subscriber and returns its id; `nil` when the work already ended. With a
    /// ``priority``, the subscriber's `priority` (by default the current load's) holds the
    /// work's up while it waits.
    func subscribe(
        progress: ProgressHandler?, completion: @escaping Completion, priority subscriberPriority: SharedPriority? = SharedPriority.current
    ) -> Int? {
        var link: SharedPriority.Link?
        if let priority, let subscriberPriority, subscriberPriority !== priority { link = subscriberPriority.link(into: priority) }
        let id = state.withLock { state -> Int? in
            guard state.phase == .open else { return nil }
            state.nextID += 1
            state.subscribers.append(Subscriber(id: state.nextID, progress: progress, completion: completion, link: link))
            return state.nextID
        }
        if id == nil { link?.cut() }
        return id
    }

    /// Attaches the task doing the work, which is cancelled if the work is abandoned (at
    /// once, when it already was). Returns whether the work is still open.
    @discardableResult
    func attach(_ task: Task<Void, Never>) -> Bool {
        let open = state.withLock { state -> Bool in
            guard state.phase == .open else { return false }
            state.task = task
            return true
        }
        if !open { task.cancel() }
        return open
    }

    /// Takes subscriber `id` out: it completes with ``ImageError/cancelled`` now; if it was
    /// the last, the work is abandoned (or, when it keeps running, its background deadline
    /// starts).
    func unsubscribe(_ id: Int) {
        let (subscriber, abandon, orphaning) = state.withLock { state -> (Subscriber?, Abandonment?, Int?) in
            guard let index = state.index(of: id) else { return (nil, nil, nil) }
            let subscriber = state.subscribers.remove(at: index)
            guard state.subscribers.isEmpty, state.phase == .open else { return (subscriber, nil, nil) }
            guard !keepsRunningWithoutSubscribers else {
                state.orphanings += 1
                return (subscriber, nil, state.orphanings)
            }
            return (subscriber, Self.abandon(&state), nil)
        }
        guard let subscriber else { return }
        subscriber.link?.cut()
        subscriber.completion(.failure(.cancelled))
        if let abandon {
            abandon.task?.cancel()
            for handler in abandon.handlers { handler() }
        }
        if let orphaning, let backgroundDeadline { startDeadline(backgroundDeadline, orphaning: orphaning) }
    }

    /// What abandoning the work leaves to do outside the lock.
    private typealias Abandonment = (task: Task<Void, Never>?, handlers: [@Sendable () -> Void])

    /// Abandons the work when `deadline` passes and it is still without subscribers since
    /// orphaning number `orphaning`.
    private func startDeadline(_ deadline: BackgroundDeadline, orphaning: Int) {
        Task { [weak self] in
            try? await Task.sleep(for: deadline.duration)
            guard let self else { return }
            let abandon = self.state.withLock { state -> Abandonment? in
                guard state.phase == .open, state.subscribers.isEmpty, state.orphanings == orphaning else { return nil }
                return Self.abandon(&state)
            }
            guard let abandon else { return }
            abandon.task?.cancel()
            for handler in abandon.handlers { handler() }
            deadline.onExpiry()
        }
    }

    /// Completes every subscriber with ``ImageError/cancelled`` (in join order) and
    /// abandons the work.
    func cancelAll() {
        let (subscribers, abandon) = state.withLock { state -> ([Subscriber], Abandonment?) in
            guard state.phase == .open else { return ([], nil) }
            defer { state.subscribers = [] }
            return (state.subscribers, Self.abandon(&state))
        }
        for subscriber in subscribers {
            subscriber.link?.cut()
            subscriber.completion(.failure(.cancelled))
        }
        if let abandon {
            abandon.task?.cancel()
            for handler in abandon.handlers { handler() }
        }
    }

    private static func abandon(_ state: inout State) -> Abandonment {
        state.phase = .abandoned
        defer {
            state.task = nil
            state.onAbandoned = []
            state.onEnd = nil
        }
        return (state.task, state.onEnd.map { state.onAbandoned + [$0] } ?? state.onAbandoned)
    }

    /// Passes progress to subscribers with a handler, at most once per ``progressInterval``
    /// each (the first report and the last always go); `position` (bytes received, say)
    /// keeps one position from being reported twice to one subscriber. `progress` is made
    /// only when some subscriber is due. Returns whether it went to any.
    @discardableResult
    func report(_ progress: @autoclosure () -> Progress, position: Int, isLast: Bool) -> Bool {
        let due = state.withLock { state -> [ProgressHandler] in
            var due: [ProgressHandler] = []
            // The clock is read only when some subscriber wants progress (most have no handler).
            var now: ContinuousClock.Instant?
            for index in state.subscribers.indices {
                guard let handler = state.subscribers[index].progress, state.subscribers[index].lastPosition != position else { continue }
                let current = now ?? ContinuousClock.now
                now = current
                if let last = state.subscribers[index].lastReport, !isLast, current - last < progressInterval { continue }
                state.subscribers[index].lastReport = current
                state.subscribers[index].lastPosition = position
                due.append(handler)
            }
            return due
        }
        guard !due.isEmpty else { return false }
        let report = progress()
        for handler in due { handler(report) }
        return true
    }

    /// Passes `value` to every subscriber's progress handler, unthrottled (an intermediate
    /// result: a progressive preview, a cached image about to be refreshed).
    func deliver(_ value: Progress) {
        let handlers = state.withLock { state in state.subscribers.compactMap(\.progress) }
        for handler in handlers { handler(value) }
    }

    /// Ends the work: every remaining subscriber completes with `result`, in join order,
    /// after `finalProgress` (when given) reaches the subscribers that have not seen
    /// `finalPosition` yet.
    func finish(_ result: Result<Value, ImageError>, finalProgress: (() -> Progress)? = nil, finalPosition: Int = 0) {
        if let finalProgress {
            let pending = state.withLock { state in
                state.subscribers.compactMap { $0.lastPosition == finalPosition ? nil : $0.progress }
            }
            if !pending.isEmpty {
                let report = finalProgress()
                for handler in pending { handler(report) }
            }
        }
        let (subscribers, onEnd) = state.withLock { state -> ([Subscriber], (@Sendable () -> Void)?) in
            if state.phase == .open { state.phase = .finished }
            state.task = nil
            state.onAbandoned = []
            defer {
                state.subscribers = []
                state.onEnd = nil
            }
            return (state.subscribers, state.onEnd)
        }
        for subscriber in subscribers {
            subscriber.link?.cut()
            subscriber.completion(result)
        }
        onEnd?()
    }

    /// Joins the work and waits for its result; `nil` when it ended before this call could
    /// join (the caller starts new work). Cancelling the calling task leaves the work with
    /// ``ImageError/cancelled``; the last subscriber out abandons it.
    func value(progress: ProgressHandler?) async -> Result<Value, ImageError>? {
        let link = CancellationLink<Int>()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<Value, ImageError>?, Never>) in
                guard let id = subscribe(progress: progress, completion: { continuation.resume(returning: $0) }) else {
                    continuation.resume(returning: nil)
                    return
                }
                link.attach(id) { self.unsubscribe($0) }
            }
        } onCancel: {
            link.cancel { self.unsubscribe($0) }
        }
    }
}

/// How long work that keeps running without subscribers (``SharedWork/keepsRunningWithoutSubscribers``)
/// may go on after its last subscriber left, and what is told when that time passes and the
/// work is abandoned.
struct BackgroundDeadline: Sendable {
    /// The time from the last subscriber's leaving.
    let duration: Duration
    /// Called once when the deadline abandons the work.
    let onExpiry: @Sendable () -> Void
}
