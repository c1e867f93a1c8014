import Dispatch
import WebImageLocking

/// A budget of bytes for the images being decoded at once, beside a ``WorkLimiter``'s
/// slots: a slot's work reserves what its decode will need before it decodes, and waits
/// in its slot while the budget is spent, so that memory is bounded by bytes, not by the
/// count of workers. Work waiting here keeps its slot, so the limiter's queue fills and
/// work past it is turned away with ``ImageError/overloaded(_:)``.
///
/// A reservation counts what the work will hold at its peak, from the source's header,
/// before any pixel is decoded: the source's bytes and the decoded pixels after
/// shrink-on-load (width × height × bands (3, or 4 with alpha) × frames, twice that when a
/// full-size image is turned for its EXIF orientation (libvips holds both), and the
/// whole-image buffer an interlaced file's decoder keeps (``ImageInfo/isInterlaced``: a
/// progressive JPEG's coefficients, an interlaced PNG's rows), at full size), then the
/// largest image its transform makes (an enlargement, an extended or padded canvas), its
/// encoder's output, and what auto quality and several candidate formats add. Work that
/// needs more than the whole budget is refused with
/// ``ImageError/memoryBudgetExceeded(needed:budget:)`` before it decodes anything; a
/// reservation the library makes on its own for that much waits until nothing else is
/// reserved and then runs alone. Waiters are served in arrival order.
public final class MemoryBudget: Sendable {
    private struct State {
        var reserved = 0
        var peak = 0
        var waiters: [(bytes: Int, wakeUp: DispatchSemaphore)] = []
    }

    /// The bytes that may be reserved at once.
    public let bytes: Int
    private let state = InlineLocked(State())

    /// A budget of `bytes` (at least 1).
    public init(bytes: Int) {
        self.bytes = max(1, bytes)
    }

    /// Bytes reserved now.
    public var reservedBytes: Int { state.withLock { $0.reserved } }
    /// The most bytes reserved at once so far.
    public var peakReservedBytes: Int { state.withLock { $0.peak } }
    /// Work waiting for bytes.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Reserves `count` bytes, blocking the calling thread until they fit. Call it on a
    /// thread of your own (a work slot's), never on a task's.
    func reserveBlocking(_ count: Int) {
        let count = max(0, count)
        let wait = state.withLock { state -> DispatchSemaphore? in
            if state.waiters.isEmpty, fits(count, in: state) {
                take(count, in: &state)
                return nil
            }
            let semaphore = DispatchSemaphore(value: 0)
            state.waiters.append((count, semaphore))
            return semaphore
        }
        // Woken with the bytes already taken for it.
        wait?.wait()
    }

    /// Returns `count` bytes and wakes the waiters they make room for, oldest first.
    func release(_ count: Int) {
        let woken = state.withLock { state -> [DispatchSemaphore] in
            state.reserved -= max(0, count)
            var woken: [DispatchSemaphore] = []
            while let first = state.waiters.first, fits(first.bytes, in: state) {
                state.waiters.removeFirst()
                take(first.bytes, in: &state)
                woken.append(first.wakeUp)
            }
            return woken
        }
        for semaphore in woken { semaphore.signal() }
    }

    private func fits(_ count: Int, in state: State) -> Bool {
        state.reserved == 0 || state.reserved + count <= bytes
    }

    private func take(_ count: Int, in state: inout State) {
        state.reserved += count
        state.peak = max(state.peak, state.reserved)
    }
}

/// The bytes one piece of variant work has reserved from a ``MemoryBudget``, returned
/// together when the work ends.
final class MemoryReservation: Sendable {
    private let budget: MemoryBudget
    private let held = InlineLocked(0)

    init(budget: MemoryBudget) {
        self.budget = budget
    }

    /// On a work slot's thread: reserves `bytes` more, waiting until they fit.
    func reserve(_ bytes: Int) {
        budget.reserveBlocking(bytes)
        held.withLock { $0 += max(0, bytes) }
    }

    /// Whether anything is reserved.
    var isHeld: Bool { held.withLock { $0 > 0 } }

    /// The whole budget's bytes.
    var budgetBytes: Int { budget.bytes }

    /// Returns everything reserved.
    func release() {
        let bytes = held.withLock { held in
            defer { held = 0 }
            return held
        }
        if bytes > 0 { budget.release(bytes) }
    }
}
