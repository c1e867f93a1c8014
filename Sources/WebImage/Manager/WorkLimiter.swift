import NIOPosix
import WebImageLocking

/// Admission control for costly work: at most ``workers`` pieces run at once, at most
/// ``queueSize`` wait for a slot (first come, first served), and anything beyond that is
/// turned away at once with ``ImageError/overloaded(_:)`` — a server answers 429 rather
/// than queueing without bound. A waiter whose task is cancelled leaves the queue.
///
/// Give one to ``ImageManager`` (`variantWorkLimiter`) and every encoded variant it makes
/// is decoded, transformed and encoded in a slot; concurrent requests for one variant
/// share one slot, and cache hits take none. A variant takes its slot once its source's
/// bytes are in: a download waits under the downloader's own limits, holding no slot.
///
/// Each slot has a thread of its own for the blocking part of the work (decode, transform,
/// encode), so `workers` images are in the codec at once — as many as are admitted, not
/// only as many as the machine has cores: a codec thread that waits on memory or on a
/// libvips pipeline stage leaves its core to another image.
public final class WorkLimiter: Sendable {
    private struct State {
        var running = 0
        /// Highest priority first, in arrival order within a priority.
        var waiters: [(id: Int, priority: DownloadPriority, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
    }

    /// Work that may run at once (at least 1).
    public let workers: Int
    /// Work that may wait for a slot (at least 0).
    public let queueSize: Int
    /// The bytes the work in the slots may reserve for its decodes at once; `nil`: only
    /// the slots bound it.
    public let memoryBudget: MemoryBudget?
    private let state = InlineLocked(State())
    /// The slots' threads: one a slot.
    let threads: NIOThreadPool

    /// Creates a limiter of `workers` slots and a queue of `queueSize`, whose work also
    /// reserves its decodes' bytes from `memoryBudget` when one is given.
    public init(workers: Int, queueSize: Int, memoryBudget: MemoryBudget? = nil) {
        self.workers = max(1, workers)
        self.queueSize = max(0, queueSize)
        self.memoryBudget = memoryBudget
        threads = NIOThreadPool(numberOfThreads: self.workers)
        threads.start()
    }

    deinit {
        threads.shutdownGracefully { _ in }
    }

    /// Work running now.
    public var running: Int { state.withLock { $0.running } }
    /// Work waiting for a slot.
    public var queued: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` in a slot, waiting for one if needed (behind waiting work of a higher
    /// `priority`, ahead of work of a lower one). Throws ``ImageError/overloaded(_:)`` when
    /// the queue is full and ``ImageError/cancelled`` when the task is cancelled while waiting.
    public func run<T: Sendable>(priority: DownloadPriority = .normal, _ body: () async throws(ImageError) -> T) async throws(ImageError) -> T {
        try await acquire(priority: priority)
        defer { release() }
        return try await body()
    }

    /// Throws ``ImageError/overloaded(_:)`` when every slot is taken and the queue is
    /// full: work that would be turned away once its bytes are in is turned away before
    /// it downloads them.
    func checkAdmission() throws(ImageError) {
        let full = state.withLock { $0.running >= workers && $0.waiters.count >= queueSize }
        if full { throw overloaded }
    }

    private var overloaded: ImageError {
        .overloaded("all \(workers) workers are busy and \(queueSize) requests are waiting")
    }

    /// Takes a slot, waiting for one if needed; pair it with ``release()``.
    func acquire(priority: DownloadPriority) async throws(ImageError) {
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
        case .now:
            return
        case .full:
            throw overloaded
        case .wait(let id):
            let admitted = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let cancelled = state.withLock { state -> Bool in
                        if Task.isCancelled { return true }
                        let position = state.waiters.firstIndex { $0.priority < priority } ?? state.waiters.endIndex
                        state.waiters.insert((id, priority, continuation), at: position)
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
            if !admitted { throw .cancelled }
        }
    }

    /// Hands the slot to the oldest waiter, or frees it.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
            state.running -= 1
            return nil
        }
        next?.resume(returning: true)
    }
}
