import Synchronization

/// Admission control for the work a cache miss costs: at most `workers` run at once, at
/// most `queueSize` wait for a slot, and anyone beyond that is turned away at once (the
/// server answers 429). A waiter whose task is cancelled leaves the queue.
final class WorkLimiter: Sendable {
    /// Why admission was refused.
    struct QueueFull: Error {}

    private struct State {
        var running = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
    }

    let workers: Int
    let queueSize: Int
    private let state = Mutex(State())

    init(workers: Int, queueSize: Int) {
        self.workers = max(1, workers)
        self.queueSize = max(0, queueSize)
    }

    /// Work running now.
    var running: Int { state.withLock { $0.running } }
    /// Work waiting for a slot.
    var queued: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` in a slot, waiting for one if needed.
    /// Throws ``QueueFull`` when the queue is full, `CancellationError` when cancelled while waiting.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws {
        enum Admission { case now, wait(Int), full }
        let admission = state.withLock { state -> Admission in
            if state.running < workers {
                state.running += 1
                return .now
            }
            guard state.waiters.count < queueSize else { return .full }
            state.nextID += 1
            return .wait(state.nextID)
        }
        switch admission {
        case .now: return
        case .full: throw QueueFull()
        case .wait(let id):
            let admitted = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let cancelled = state.withLock { state -> Bool in
                        if Task.isCancelled { return true }
                        state.waiters.append((id, continuation))
                        return false
                    }
                    if cancelled { continuation.resume(returning: false) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                waiter?.resume(returning: false)
            }
            if !admitted { throw CancellationError() }
        }
    }

    /// Hands the slot to the oldest waiter, or frees it.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
            state.running -= 1
            return nil
        }
        next?.resume(returning: true)
    }
}
