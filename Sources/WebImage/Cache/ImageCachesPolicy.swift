/// How ``ImageCachesManager`` runs one kind of operation over its caches: SDWebImage's
/// `SDImageCachesManagerOperationPolicy`.
public enum ImageCachesPolicy: Sendable, Hashable {
    /// Each cache in turn, highest priority first. A lookup stops at the first cache that
    /// answers; a write or removal goes through every cache.
    case serial
    /// Every cache at once, each on a thread of its own. A lookup answers with the highest-priority cache that has the
    /// entry (SDWebImage's answers with whichever finishes first).
    case concurrent
    /// The highest-priority cache (the last of ``ImageCachesManager/caches``) only.
    case highestOnly
    /// The lowest-priority cache (the first of ``ImageCachesManager/caches``) only.
    case lowestOnly
}
