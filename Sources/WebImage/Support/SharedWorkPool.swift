import WebImageLocking
/// Something that holds a ``SharedWork``: the work itself, or an owner that carries more
/// (a download's URL and queue position).
protocol SharedWorkHolder: AnyObject, Sendable {
    associatedtype Value: Sendable
    associatedtype Progress: Sendable
    /// The shared work.
    var sharedWork: SharedWork<Value, Progress> { get }
}

extension SharedWork: SharedWorkHolder {
    var sharedWork: SharedWork<Value, Progress> { self }
}

/// Keyed single flight: callers that join under one key share one ``SharedWork`` while it
/// is open; the first caller's join makes it, and the work leaves the pool when it ends
/// (finished or abandoned), so a later caller starts anew.
final class SharedWorkPool<Key: Hashable & Sendable, Holder: SharedWorkHolder>: Sendable {
    private let works = Locked<[Key: Holder]>([:])

    /// Creates an empty pool.
    init() {}

    /// One caller's place in shared work.
    struct Subscription: Sendable {
        /// The work joined.
        let holder: Holder
        /// The caller's id in it (for ``SharedWork/unsubscribe(_:)``).
        let id: Int
        /// Whether this call made the work (so the caller starts it).
        let isNew: Bool

        /// Leaves the work: the caller completes with ``ImageError/cancelled``; the last
        /// one out abandons it.
        func cancel() { holder.sharedWork.unsubscribe(id) }
    }

    /// Joins the open work under `key`, or registers new work made by `make` (the caller
    /// then starts it: ``Subscription/isNew``).
    func join(
        _ key: Key,
        progress: SharedWork<Holder.Value, Holder.Progress>.ProgressHandler?,
        completion: @escaping SharedWork<Holder.Value, Holder.Progress>.Completion,
        priority: SharedPriority? = SharedPriority.current,
        make: () -> Holder
    ) -> Subscription {
        while true {
            let (holder, isNew) = claim(key, make: make)
            if let id = holder.sharedWork.subscribe(progress: progress, completion: completion, priority: priority) {
                return Subscription(holder: holder, id: id, isNew: isNew)
            }
            // It ended between the lookup and the subscription: retire it and try again.
            retire(key, holder)
        }
    }

    /// Claims the work under `key`: the open work another caller drives (`isNew == false`:
    /// join it with ``SharedWork/value(progress:)``), or new work made by `make`, which this
    /// caller must drive to its end (finish it, retiring it first with ``retire(_:_:)``).
    /// Unlike ``join(_:progress:completion:make:)``, nobody is subscribed.
    func claim(_ key: Key, make: () -> Holder) -> (holder: Holder, isNew: Bool) {
        while true {
            var created: Holder?
            let holder = works.withLock { works -> Holder in
                if let existing = works[key] { return existing }
                let made = make()
                works[key] = made
                created = made
                return made
            }
            if let created {
                // Abandoned work leaves the pool at once (finished work is retired by its runner).
                created.sharedWork.onAbandon { [weak self, unowned created] in self?.retire(key, created) }
                return (created, true)
            }
            if holder.sharedWork.isOpen { return (holder, false) }
            retire(key, holder)
        }
    }

    /// Forgets `holder` under `key` (if it is still the one there), so that the next
    /// caller starts new work.
    func retire(_ key: Key, _ holder: Holder) {
        works.withLock { works in
            if works[key] === holder { works.removeValue(forKey: key) }
        }
    }

    /// Work open now.
    var count: Int { works.withLock { $0.count } }

    /// Every open work.
    var all: [Holder] { works.withLock { Array($0.values) } }
}

extension SharedWorkPool {
    /// The result of `work` for `key`, run in a task of its own by the first caller and
    /// joined by the callers that ask while it runs; `joined` says whether this call
    /// joined. `work` gets the shared work, to deliver progress to every caller's
    /// `progress`. Cancelling a caller's task makes it leave with ``ImageError/cancelled``;
    /// when the last caller leaves, the work's task is cancelled — unless the caller that
    /// started it asked it to `keepRunning`, and then it runs to its end, or until
    /// `backgroundDeadline` after the last caller left.
    func run<Value: Sendable, Progress: Sendable>(
        _ key: Key,
        keepRunning: Bool = false,
        backgroundDeadline: BackgroundDeadline? = nil,
        progress: (@Sendable (Progress) -> Void)? = nil,
        work: @escaping @Sendable (SharedWork<Value, Progress>) async throws(ImageError) -> Value
    ) async throws(ImageError) -> (value: Value, joined: Bool) where Holder == SharedWork<Value, Progress> {
        let link = CancellationLink<Subscription>()
        var joined = false
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<Value, ImageError>, Never>) in
                let subscription = join(
                    key, progress: progress, completion: { continuation.resume(returning: $0) },
                    make: {
                        SharedWork<Value, Progress>(
                            keepsRunningWithoutSubscribers: keepRunning, backgroundDeadline: backgroundDeadline, priority: SharedPriority.current
                        )
                    }
                )
                joined = !subscription.isNew
                if subscription.isNew {
                    let holder = subscription.holder
                    holder.attach(Task { [weak self] in
                        let result: Result<Value, ImageError>
                        do throws(ImageError) {
                            result = .success(try await work(holder))
                        } catch {
                            result = .failure(error)
                        }
                        self?.retire(key, holder)
                        holder.finish(result)
                    })
                }
                link.attach(subscription) { $0.cancel() }
            }
        } onCancel: {
            link.cancel { $0.cancel() }
        }
        return (try result.get(), joined)
    }

    /// ``run(_:keepRunning:backgroundDeadline:progress:work:)`` for work without progress.
    func run<Value: Sendable>(
        _ key: Key,
        keepRunning: Bool = false,
        backgroundDeadline: BackgroundDeadline? = nil,
        work: @escaping @Sendable () async throws(ImageError) -> Value
    ) async throws(ImageError) -> (value: Value, joined: Bool) where Holder == SharedWork<Value, Never> {
        try await run(key, keepRunning: keepRunning, backgroundDeadline: backgroundDeadline, progress: nil) { (_: SharedWork<Value, Never>) throws(ImageError) -> Value in
            try await work()
        }
    }
}
