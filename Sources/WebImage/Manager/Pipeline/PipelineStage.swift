import NIOPosix
import Tracing

/// One stage of the pipeline: its works in flight, each keyed by what it produces (the
/// source's bytes, a decoded image, a processed image), so that every request needing
/// the same thing at once shares one.
///
/// The caller that claims new work drives it, usually together with the stages above it
/// in one visit to a coding thread, and finishes it as soon as its value exists; callers
/// that find it in flight wait for that value. Work stays open until its driver finishes
/// it, whoever waits for it; a waiter whose driver was cancelled drives it anew.
final class PipelineStage<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    typealias Work = SharedWork<Value, DownloadProgress>
    private let works = SharedWorkPool<Key, Work>()

    init() {}

    /// `T` made from this stage's value for `key`: by `make`, which is given the new work
    /// to finish (it fails with what `make` throws), or by `join` from the value of the
    /// work in flight. Progress of the work reaches `run`'s events either way.
    func obtain<T: Sendable>(
        _ key: Key,
        run: StageRun,
        make: (OwnedWork<Key, Value>, StageRun) async throws(ImageError) -> T,
        join: (Value) async throws(ImageError) -> T
    ) async throws(ImageError) -> T {
        while true {
            if Task.isCancelled { throw .cancelled }
            // The work follows its driver's priority, which its waiters hold up.
            let (work, isNew) = works.claim(key) { Work(keepsRunningWithoutSubscribers: true, priority: SharedPriority.current) }
            if isNew {
                let owned = OwnedWork(work: work, key: key, works: works)
                do throws(ImageError) {
                    return try await make(owned, run.forwarding(to: work))
                } catch {
                    owned.fail(error)
                    throw error
                }
            }
            switch await work.value(progress: run.events.handler) {
            case .success(let value)?:
                return try await join(value)
            case .failure(.cancelled)? where !Task.isCancelled, nil:
                // Its driver was cancelled, or it ended before this call joined: claim it anew.
                continue
            case .failure(let error)?:
                throw error
            }
        }
    }

    /// Runs `then` with this stage's value for `key` on a coding thread and returns its
    /// result. The value comes from the work in flight, or is made by `compute` from the
    /// value of the stage below, which `below` runs `compute` and `then` with — in the same
    /// visit to a coding thread, where it can.
    func value<Input: Sendable, T: Sendable>(
        _ key: Key,
        run: StageRun,
        below: (StageRun, @escaping @Sendable (Input) throws(ImageError) -> T) async throws(ImageError) -> T,
        compute: @escaping @Sendable (Input, ServiceContext?) throws(ImageError) -> Value,
        then: @escaping @Sendable (Value) throws(ImageError) -> T
    ) async throws(ImageError) -> T {
        try await obtain(key, run: run) { owned, run throws(ImageError) -> T in
            let trace = run.trace
            return try await below(run) { input throws(ImageError) -> T in
                let value = try compute(input, trace)
                owned.finish(value)
                return try then(value)
            }
        } join: { value throws(ImageError) -> T in
            try await run.code { () throws(ImageError) -> T in try then(value) }
        }
    }

    /// Work in flight now.
    var count: Int { works.count }

    /// Callers waiting for the value of work in flight that another caller drives.
    var waiterCount: Int { works.all.reduce(0) { $0 + $1.subscriberCount } }
}

/// Work of a ``PipelineStage`` that one caller drives: finishing it hands its value to
/// every caller waiting for it, and the next caller starts anew.
struct OwnedWork<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let work: SharedWork<Value, DownloadProgress>
    let key: Key
    let works: SharedWorkPool<Key, SharedWork<Value, DownloadProgress>>

    /// Ends the work with `value`.
    func finish(_ value: Value) {
        works.retire(key, work)
        work.finish(.success(value))
    }

    /// Ends the work with `error` (nothing happens when it ended already).
    func fail(_ error: ImageError) {
        works.retire(key, work)
        work.finish(.failure(error))
    }
}

/// Where download progress goes while stages run: the works above that the same call
/// drives, and whoever waits for the load.
struct StageEvents: Sendable {
    private var handlers: [@Sendable (DownloadProgress) -> Void] = []

    /// Nobody listens.
    static let none = StageEvents()

    /// These events and `handler`.
    func adding(_ handler: @escaping @Sendable (DownloadProgress) -> Void) -> StageEvents {
        var events = self
        events.handlers.append(handler)
        return events
    }

    /// A handler passing each report to every listener; `nil` when nobody listens.
    var handler: (@Sendable (DownloadProgress) -> Void)? {
        guard !handlers.isEmpty else { return nil }
        let handlers = self.handlers
        return { report in for handler in handlers { handler(report) } }
    }
}

/// What the stages of one drive share: the threads they code on (and the work slot they
/// take first), where progress goes, and the span their own spans belong under.
struct StageRun: Sendable {
    /// The coding threads: the work limiter's, or the coding pool.
    let threads: NIOThreadPool
    /// The work limiter's slot taken before the first visit to a coding thread; `nil`
    /// without a limiter.
    var slot: WorkSlot?
    /// The encodes the work may run, current on the coding thread during each visit, and
    /// cancelled with the task that waits for the visit; `nil`: no limit.
    var allowance: EncodeAllowance? = nil
    /// Where download progress goes.
    var events: StageEvents
    /// The span the stages' spans are children of (their threads have no task).
    let trace: ServiceContext?
    /// Whether the source cache is read, and a loaded source written, on the coding thread
    /// that makes the result from it (one visit for both): encoded outputs, made in a work
    /// slot. An image load uses the I/O threads for them instead, so that a miss does not
    /// wait behind other loads' decodes on the shared coding pool before its download starts.
    let cacheIOOnCodingThreads: Bool

    /// This run with progress passed on to the waiters of `work` too.
    func forwarding<Value>(to work: SharedWork<Value, DownloadProgress>) -> StageRun {
        var run = self
        run.events = events.adding { work.deliver($0) }
        return run
    }

    /// Runs `body` on the coding threads, in the work slot (taken now if it is not held).
    func code<T: Sendable>(_ body: @escaping @Sendable () throws(ImageError) -> T) async throws(ImageError) -> T {
        if let slot { try await slot.acquire() }
        guard let allowance else { return try await BlockingPools.run(on: threads, body) }
        // The coding thread has no task to see the cancel: the allowance carries it to the
        // encoders, which stop before their next encode.
        let threads = self.threads
        let result = await withTaskCancellationHandler { () async -> Result<T, ImageError> in
            do throws(ImageError) {
                return .success(try await BlockingPools.run(on: threads) { () throws(ImageError) -> T in try EncodeAllowance.run(allowance, body) })
            } catch {
                return .failure(error)
            }
        } onCancel: {
            allowance.cancel()
        }
        return try result.get()
    }
}
