import NIOPosix
import Synchronization

/// How many encodes one piece of work may run, and whether it was cancelled: the
/// ``ImageManager`` gives one to each encoded output it makes (its
/// ``ImageManager/maxEncodesPerOutput``), current on the coding thread while that output
/// is decoded, processed and encoded.
///
/// The encoders ask it: ``VipsCoder`` counts each encode it runs (``take()``, which also
/// stops cancelled work before it encodes), and the loops that try more — auto quality's
/// search, a file-size limit's search, the candidate formats of
/// ``VariantFormat/best(_:)`` — stop trying once ``hasLeft`` is false and keep the best
/// result they have. Only the first encode of a piece of work runs without asking, so it
/// never runs more than its limit.
final class EncodeAllowance: Sendable {
    /// The encodes allowed, at least 1.
    let limit: Int
    private let used = Atomic<Int>(0)
    private let cancelled = Atomic<Bool>(false)

    /// An allowance of `limit` encodes (at least 1).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Encodes run so far.
    var encodes: Int { used.load(ordering: .relaxed) }

    /// Whether another encode may run.
    var hasLeft: Bool { encodes < limit }

    /// Whether the work was cancelled: nobody waits for its result any more.
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Marks the work cancelled; its next ``take()`` throws.
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Counts one encode about to run; throws ``ImageError/cancelled`` instead when the
    /// work was cancelled.
    func take() throws(ImageError) {
        if isCancelled { throw .cancelled }
        used.add(1, ordering: .relaxed)
    }

    private static let slot = ThreadSpecificVariable<EncodeAllowance>()

    /// The allowance of the work running on this thread; `nil` outside such work (a direct
    /// call to a coder), where nothing is counted or cut short.
    static var current: EncodeAllowance? { slot.currentValue }

    /// Runs `body` with `allowance` current on this thread.
    static func run<T>(_ allowance: EncodeAllowance?, _ body: () throws(ImageError) -> T) throws(ImageError) -> T {
        guard let allowance else { return try body() }
        let previous = slot.currentValue
        slot.currentValue = allowance
        defer { slot.currentValue = previous }
        return try body()
    }

    /// Whether the current work (if any) may run another encode.
    static var currentHasLeft: Bool { current?.hasLeft ?? true }
}
