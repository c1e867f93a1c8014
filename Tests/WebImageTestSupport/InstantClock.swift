import WebImageLocking

/// A clock on which every sleep ends at once, moving the clock's time forward by what it
/// slept, and which records each sleep's duration: code that waits on it can be tested for
/// how long it asked to wait without waiting. A cancelled task's sleep throws
/// `CancellationError`, as a real clock's does.
package final class InstantClock: Clock, Sendable {
    package struct Instant: InstantProtocol {
        /// The time since the clock's start.
        package var offset: Duration

        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleeps: [Duration] = []
    }

    private let state = Locked(State())

    package init() {}

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .zero }

    /// The durations slept, in order.
    package var sleeps: [Duration] { state.withLock { $0.sleeps } }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
            if state.now < deadline { state.now = deadline }
        }
    }
}
