import Foundation
import WebImage
import WebImageLocking

/// A gate a test opens to let the origin go on with a response: a deterministic way to hold
/// a response at a chosen point (before its head, or after some body bytes) until the test
/// has seen what it waits for.
///
///     let gate = TestOriginGate()
///     origin.register("/a.png", .image(png).pausing(afterBodyBytes: 100, until: gate))
///     ... see the first 100 bytes arrive ...
///     gate.open()
///
/// A gate opens once and stays open; responses that reach an open gate go straight on.
/// Keep a held response shorter than the client's idle timeout.
package final class TestOriginGate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [@Sendable () -> Void] = []
        var arrivals = 0
    }

    private let state = Locked(State())

    package init() {}

    /// Lets every response waiting at the gate go on, and every later one pass.
    package func open() {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }

    /// Whether ``open()`` was called.
    package var isOpen: Bool { state.withLock { $0.isOpen } }

    /// How many responses reached the gate (waiting now or passed).
    package var arrivals: Int { state.withLock { $0.arrivals } }

    /// Waits until at least `count` responses reached the gate; false on timeout.
    package func waitForArrivals(_ count: Int = 1, timeout: Duration = .seconds(300)) async -> Bool {
        await eventually(timeout: timeout) { arrivals >= count }
    }

    /// Returns once the gate is open, counted as an arrival: a gate for code of the test's
    /// own (a custom source, a loader) rather than the origin.
    package func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            whenOpen { continuation.resume() }
        }
    }

    /// Runs `body` when the gate opens (at once if it is open), on the opener's thread.
    func whenOpen(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            state.arrivals += 1
            if state.isOpen { return true }
            state.waiters.append(body)
            return false
        }
        if runNow { body() }
    }
}
