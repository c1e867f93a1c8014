import WebImageLocking

/// A clock whose time moves only when the test moves it: a sleep waits until
/// ``advance(by:)`` passes its deadline, so code that paces itself on the clock can be
/// tested step by step, by counts, without waiting. A cancelled task's sleep throws
/// `CancellationError` at once, as a real clock's does.
package final class ManualClock: Clock, Sendable {
    package typealias Instant = InstantClock.Instant

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID = 0
        var cancelled: Set<Int> = []
    }

    private let state = Locked(State())

    package init() {}

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .zero }

    /// Tasks sleeping on the clock now.
    package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves the time forward by `duration`, waking every sleeper whose deadline it passes.
    package func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { !(now < $0.deadline) }
            state.sleepers.removeAll { !(now < $0.deadline) }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.cancelled.remove(id) != nil || !(state.now < deadline) { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }
}
