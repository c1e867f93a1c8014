import WebImageLocking

/// The ``WorkLimiter`` slot one making of an encoded output runs its coding in: taken when
/// the making first needs a coding thread (its source's bytes are in), held until the
/// making ends, so that a download never sits in a slot.
final class WorkSlot: Sendable {
    let limiter: WorkLimiter
    let priority: DownloadPriority
    private let held = InlineLocked(false)
    /// When the slot was first asked for, and when it was taken.
    private let times = InlineLocked<(asked: ContinuousClock.Instant?, taken: ContinuousClock.Instant?)>((nil, nil))

    init(limiter: WorkLimiter, priority: DownloadPriority) {
        self.limiter = limiter
        self.priority = priority
    }

    /// Takes the slot unless it is held: waits behind the limiter's queue, and throws
    /// ``ImageError/overloaded(_:)`` when that is full or ``ImageError/cancelled``.
    func acquire() async throws(ImageError) {
        if held.withLock({ $0 }) { return }
        let asked = ContinuousClock.now
        // A load that others joined waits at the highest of their priorities.
        try await limiter.acquire(priority: max(priority, SharedPriority.current?.value ?? priority))
        let taken = ContinuousClock.now
        held.withLock { $0 = true }
        times.withLock { times in
            if times.asked == nil { times = (asked, taken) }
        }
    }

    /// When the slot was first asked for and when it was taken; `nil` while it has not been.
    var acquisition: (asked: ContinuousClock.Instant, taken: ContinuousClock.Instant)? {
        times.withLock { times in
            guard let asked = times.asked, let taken = times.taken else { return nil }
            return (asked, taken)
        }
    }

    /// Gives the slot back, if it was taken.
    func release() {
        let wasHeld = held.withLock { held in
            defer { held = false }
            return held
        }
        if wasHeld { limiter.release() }
    }
}
