/// Where a download stands in the queue when all download slots are busy.
public enum DownloadPriority: Int, Sendable, Comparable, CaseIterable {
    /// Waits behind everything else (prefetching).
    case low
    /// The default.
    case normal
    /// Jumps ahead of normal and low downloads.
    case high

    /// Orders the priorities by their raw values: ``low`` before ``normal`` before ``high``.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
