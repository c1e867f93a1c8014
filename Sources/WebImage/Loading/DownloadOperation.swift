import Foundation

/// One transfer of one URL, shared by every caller that asked for it while it runs.
///
/// Each caller has its own progress and completion. A caller that cancels is detached
/// and completed with ``ImageError/cancelled`` at once; when the last caller leaves, the
/// operation is abandoned: a queued one never starts, a running one is cancelled (the
/// connection closes). Every caller's completion runs exactly once.
final class DownloadOperation: Sendable {
    enum Phase {
        /// Waiting in the queue.
        case pending
        /// Transferring.
        case running
        /// Every caller left; new callers must start a new operation.
        case abandoned
        /// Completed; new callers must start a new operation.
        case finished
    }

    private struct Caller {
        let id: Int
        var progress: (@Sendable (DownloadProgress) -> Void)?
        var completion: @Sendable (Result<DownloadResponse, ImageError>) -> Void
        var lastProgress: ContinuousClock.Instant?
        var lastReportedBytes = -1
    }

    private struct State {
        /// In the order they joined (ids increase); an array, as most transfers have one caller.
        var callers: [Caller] = []
        var nextCallerID = 0
        var phase = Phase.pending
        var task: Task<Void, Never>?
        var priority: DownloadPriority

        /// Where the caller `id` is in `callers`, found by bisection (ids increase).
        func index(ofCaller id: Int) -> Int? {
            var low = 0, high = callers.count
            while low < high {
                let middle = (low + high) / 2
                if callers[middle].id < id { low = middle + 1 } else { high = middle }
            }
            return low < callers.count && callers[low].id == id ? low : nil
        }
    }

    let url: URL
    let key: String
    let options: DownloadOptions
    private let progressInterval: Duration
    private let state: InlineLocked<State>
    /// Called once when the last caller leaves before completion.
    private let onAbandoned: @Sendable (DownloadOperation) -> Void

    init(
        url: URL, key: String, options: DownloadOptions, progressInterval: Duration,
        onAbandoned: @escaping @Sendable (DownloadOperation) -> Void
    ) {
        self.url = url
        self.key = key
        self.options = options
        self.progressInterval = progressInterval
        self.onAbandoned = onAbandoned
        self.state = InlineLocked(State(priority: options.priority))
    }

    var phase: Phase { state.withLock { $0.phase } }
    var priority: DownloadPriority { state.withLock { $0.priority } }
    var callerCount: Int { state.withLock { $0.callers.count } }

    /// Adds a caller; `nil` when the operation can no longer take one (it finished or
    /// was abandoned), in which case the caller needs a new operation.
    func addCaller(
        priority: DownloadPriority,
        progress: (@Sendable (DownloadProgress) -> Void)?,
        completion: @escaping @Sendable (Result<DownloadResponse, ImageError>) -> Void
    ) -> Int? {
        state.withLock { state in
            guard state.phase == .pending || state.phase == .running else { return nil }
            state.nextCallerID += 1
            state.callers.append(Caller(id: state.nextCallerID, progress: progress, completion: completion))
            state.priority = max(state.priority, priority)
            return state.nextCallerID
        }
    }

    /// Marks the operation running with its transfer task; `false` when it was abandoned
    /// meanwhile (the task is then cancelled).
    func markRunning(_ task: Task<Void, Never>) -> Bool {
        let running = state.withLock { state -> Bool in
            guard state.phase == .pending else { return false }
            state.phase = .running
            state.task = task
            return true
        }
        if !running { task.cancel() }
        return running
    }

    func cancel(callerID: Int) {
        let (caller, abandoned, task) = state.withLock { state -> (Caller?, Bool, Task<Void, Never>?) in
            guard let index = state.index(ofCaller: callerID) else { return (nil, false, nil) }
            let caller = state.callers.remove(at: index)
            guard state.callers.isEmpty, state.phase == .pending || state.phase == .running else { return (caller, false, nil) }
            state.phase = .abandoned
            return (caller, true, state.task)
        }
        guard let caller else { return }
        caller.completion(.failure(.cancelled))
        if abandoned {
            task?.cancel()
            onAbandoned(self)
        }
    }

    /// Cancels every caller (each completes with `cancelled`, in join order) and the transfer.
    func cancelAll() {
        let (callers, task) = state.withLock { state -> ([Caller], Task<Void, Never>?) in
            // Callers are only ever present while the operation is pending or running.
            guard !state.callers.isEmpty else { return ([], nil) }
            state.phase = .abandoned
            defer { state.callers = [] }
            return (state.callers, state.task)
        }
        guard !callers.isEmpty else { return }
        for caller in callers { caller.completion(.failure(.cancelled)) }
        task?.cancel()
        onAbandoned(self)
    }

    /// Passes progress to callers, at most once per `minimumProgressInterval` each,
    /// except the first report and the one that completes the body.
    func reportProgress(received: Int, expected: Int?, partialData: @autoclosure () -> Data?) {
        let isLast = expected.map { received >= $0 } ?? false
        let due = state.withLock { state -> [(@Sendable (DownloadProgress) -> Void)] in
            var due: [(@Sendable (DownloadProgress) -> Void)] = []
            // Read only when some caller wants progress (most loads have no progress closure).
            var now: ContinuousClock.Instant?
            for index in state.callers.indices {
                guard let progress = state.callers[index].progress, state.callers[index].lastReportedBytes != received else { continue }
                let current = now ?? ContinuousClock.now
                now = current
                if let last = state.callers[index].lastProgress, !isLast, current - last < progressInterval { continue }
                state.callers[index].lastProgress = current
                state.callers[index].lastReportedBytes = received
                due.append(progress)
            }
            return due
        }
        guard !due.isEmpty else { return }
        let partial = options.wantsPartialData ? partialData() : nil
        let report = DownloadProgress(receivedBytes: received, expectedBytes: expected, partialData: partial)
        for progress in due { progress(report) }
    }

    /// Completes every remaining caller with `result`, after a last progress report of
    /// the full body to callers that have not seen it.
    func finish(_ result: Result<DownloadResponse, ImageError>) {
        if case .success(let response) = result {
            let total = response.data.count
            let pending = state.withLock { state in
                state.callers.compactMap { $0.lastReportedBytes == total ? nil : $0.progress }
            }
            let report = DownloadProgress(
                receivedBytes: total, expectedBytes: total, partialData: options.wantsPartialData ? response.data : nil
            )
            for progress in pending { progress(report) }
        }
        let callers = state.withLock { state -> [Caller] in
            if state.phase != .abandoned { state.phase = .finished }
            state.task = nil
            defer { state.callers = [] }
            return state.callers
        }
        for caller in callers { caller.completion(result) }
    }
}
