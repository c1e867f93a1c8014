import DequeModule
import WebImageLocking

/// Decides when downloads start: at most `maxConcurrent` at once and at most
/// `maxPerHost` from one host, the rest queued by priority, then FIFO or LIFO; a download
/// whose host is at its limit lets the next one from another host go first. A queued
/// download whose priority rises moves to the back of its new priority's line.
/// Suspension holds every queued download back. With a rate limit, a download also needs
/// a start from its token bucket; when none is left the queue waits, on the limit's clock,
/// for the next one.
final class DownloadQueue: Sendable {
    private struct State {
        var maxConcurrent: Int
        let maxPerHost: Int?
        var order: DownloaderConfig.ExecutionOrder
        var isSuspended = false
        var bucket: StartTokenBucket?
        /// Whether a wait for the bucket's next start is under way.
        var waitsForToken = false
        var running = 0
        /// Downloads running per host, kept only with a per-host limit.
        var runningPerHost: [String: Int] = [:]
        /// Indexed by `DownloadPriority.rawValue`.
        var pending: [Deque<DownloadOperation>] = Array(repeating: [], count: DownloadPriority.allCases.count)

        var pendingCount: Int { pending.reduce(0) { $0 + $1.count } }

        /// Takes the operations that may start now, counting them as running.
        mutating func takeStartable() -> Startable {
            var startable = Startable()
            while !isSuspended, running < maxConcurrent {
                if bucket != nil, pendingCount > 0, !bucket!.hasToken(at: bucket!.elapsed()) {
                    if !waitsForToken {
                        waitsForToken = true
                        startable.waitForToken = bucket!.timeToNextToken
                    }
                    break
                }
                guard let next = popNext() else { break }
                bucket?.take()
                running += 1
                if maxPerHost != nil { runningPerHost[next.host, default: 0] += 1 }
                startable.append(next)
            }
            return startable
        }

        /// Counts `operation`, which was running, as ended.
        mutating func ended(_ operation: DownloadOperation) {
            running -= 1
            guard maxPerHost != nil, let count = runningPerHost[operation.host] else { return }
            if count <= 1 { runningPerHost.removeValue(forKey: operation.host) } else { runningPerHost[operation.host] = count - 1 }
        }

        private mutating func popNext() -> DownloadOperation? {
            for priority in DownloadPriority.allCases.reversed() where !pending[priority.rawValue].isEmpty {
                guard let maxPerHost else {
                    return order == .fifo ? pending[priority.rawValue].removeFirst() : pending[priority.rawValue].removeLast()
                }
                let count = pending[priority.rawValue].count
                for offset in 0..<count {
                    let index = order == .fifo ? offset : count - 1 - offset
                    if runningPerHost[pending[priority.rawValue][index].host, default: 0] < maxPerHost {
                        return pending[priority.rawValue].remove(at: index)
                    }
                }
            }
            return nil
        }
    }

    /// Operations that may start now: mostly none or one, which need no array.
    private struct Startable {
        private var first: DownloadOperation?
        private var rest: [DownloadOperation] = []
        /// How long to wait for the rate limit's next start, when the queue must.
        var waitForToken: Duration?

        mutating func append(_ operation: DownloadOperation) {
            if first == nil { first = operation } else { rest.append(operation) }
        }

        func forEach(_ body: (DownloadOperation) -> Void) {
            guard let first else { return }
            body(first)
            rest.forEach(body)
        }
    }

    private let state: Locked<State>
    private let start: @Sendable (DownloadOperation) -> Void

    init(
        maxConcurrent: Int, maxPerHost: Int? = nil, order: DownloaderConfig.ExecutionOrder, rateLimit: DownloadRateLimit? = nil,
        start: @escaping @Sendable (DownloadOperation) -> Void
    ) {
        state = Locked(State(
            maxConcurrent: max(1, maxConcurrent), maxPerHost: maxPerHost.map { max(1, $0) }, order: order,
            bucket: rateLimit.map(StartTokenBucket.init)
        ))
        self.start = start
    }

    /// Starts `startable`, and waits for the next start of the rate limit when it says so.
    private func launch(_ startable: Startable) {
        startable.forEach(start)
        guard let wait = startable.waitForToken, let sleep = state.withLock({ $0.bucket?.sleep }) else { return }
        Task { [weak self] in
            await sleep(wait)
            guard let self else { return }
            self.launch(self.state.withLock { state in
                state.waitsForToken = false
                return state.takeStartable()
            })
        }
    }

    /// Queues `operation`; it starts now when a slot is free.
    func submit(_ operation: DownloadOperation) {
        let startable = state.withLock { state in
            state.pending[operation.priority.value.rawValue].append(operation)
            return state.takeStartable()
        }
        launch(startable)
    }

    /// Moves a queued `operation` to the line of its priority now; nothing happens to one
    /// that is running or gone.
    func reprioritize(_ operation: DownloadOperation) {
        state.withLock { state in
            let priority = operation.priority.value.rawValue
            for index in state.pending.indices where index != priority {
                if let position = state.pending[index].firstIndex(where: { $0 === operation }) {
                    state.pending[index].remove(at: position)
                    state.pending[priority].append(operation)
                    return
                }
            }
        }
    }

    /// Frees the slot of `operation`, which was running and ended, starting the next ones.
    func runningOperationEnded(_ operation: DownloadOperation) {
        let startable = state.withLock { state in
            state.ended(operation)
            return state.takeStartable()
        }
        launch(startable)
    }

    /// Drops a queued operation that was abandoned before it started; `false` if it was not queued.
    @discardableResult
    func removePending(_ operation: DownloadOperation) -> Bool {
        state.withLock { state in
            for index in state.pending.indices {
                if let position = state.pending[index].firstIndex(where: { $0 === operation }) {
                    state.pending[index].remove(at: position)
                    return true
                }
            }
            return false
        }
    }

    var maxConcurrent: Int { state.withLock { $0.maxConcurrent } }

    /// Changes the limit; raising it starts queued operations at once.
    func setMaxConcurrent(_ value: Int) {
        let startable = state.withLock { state in
            state.maxConcurrent = max(1, value)
            return state.takeStartable()
        }
        launch(startable)
    }

    var isSuspended: Bool { state.withLock { $0.isSuspended } }

    func setSuspended(_ suspended: Bool) {
        let startable = state.withLock { state in
            state.isSuspended = suspended
            return state.takeStartable()
        }
        launch(startable)
    }

    /// Operations running plus queued.
    var count: Int { state.withLock { $0.running + $0.pendingCount } }
}
