import WebImageLocking

/// The ``WorkLimiter`` slot one making of an encoded output runs its coding in: taken when
/// the making first needs a coding thread (its source's bytes are in), held until the
/// making ends, so that a download never sits in a slot.
final class WorkSlot: Sendable {
    let limiter: WorkLimiter
    let priority: DownloadPriority
    private let held = InlineLocked(false)

    init(limiter: WorkLimiter, priority: DownloadPriority) {
        self.limiter = limiter
        self.priority = priority
    }

    /// Takes the slot unless it is held: waits behind the limiter's queue, and throws
    /// ``ImageError/overloaded(_:)`` when that is full or ``ImageError/cancelled``.
    func acquire() async throws(ImageError) {
        if held.withLock({ $0 }) { return }
        try await limiter.acquire(priority: priority)
        held.withLock { $0 = true }
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
