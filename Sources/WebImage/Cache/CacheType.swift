/// Which caches an operation reads or writes, and which cache answered a query — the
/// analogue of SDWebImage's `SDImageCacheType`.
public enum CacheType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No cache: as an operation's scope, do nothing; as an answer, the image was not cached.
    case none
    /// The in-memory cache of decoded images only.
    case memory
    /// The on-disk cache of encoded bytes only.
    case disk
    /// Both caches: memory first, then disk.
    case all

    /// Whether this scope includes the memory cache (`.memory` or `.all`).
    public var includesMemory: Bool { self == .memory || self == .all }

    /// Whether this scope includes the disk cache (`.disk` or `.all`).
    public var includesDisk: Bool { self == .disk || self == .all }

    /// `none`, `memory`, `disk` or `all`.
    public var description: String {
        switch self {
        case .none: "none"
        case .memory: "memory"
        case .disk: "disk"
        case .all: "all"
        }
    }
}

extension CacheType {
    /// The caches both scopes name.
    public func intersection(_ other: CacheType) -> CacheType {
        switch (includesMemory && other.includesMemory, includesDisk && other.includesDisk) {
        case (true, true): .all
        case (true, false): .memory
        case (false, true): .disk
        case (false, false): .none
        }
    }
}
