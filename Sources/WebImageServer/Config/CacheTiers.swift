import WebImage

/// Where the proxy keeps what it made (`--cache`): encoded variants in memory, variants and
/// the sources they were made from on disk, both, or nothing (every request is made anew,
/// as imgproxy makes it: a CDN in front is the cache).
public enum CacheTiers: String, Sendable, Hashable, CaseIterable {
    /// Nothing is kept.
    case none
    /// Variants in memory; nothing on disk.
    case memory
    /// Variants and sources on disk; nothing in memory.
    case disk
    /// Variants in memory and on disk, sources on disk.
    case memoryAndDisk = "memory+disk"

    /// Whether anything is kept on disk.
    public var usesDisk: Bool { self == .disk || self == .memoryAndDisk }

    /// The manager's policy: what it keeps in each tier.
    public var policy: ImageCachePolicy {
        switch self {
        case .none: ImageCachePolicy(originals: .none, encodedVariants: .none)
        case .memory: ImageCachePolicy(originals: .none, encodedVariants: .memory)
        case .disk: ImageCachePolicy(originals: .disk, encodedVariants: .disk)
        case .memoryAndDisk: .default
        }
    }
}
