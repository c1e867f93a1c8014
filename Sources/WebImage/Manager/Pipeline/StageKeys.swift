import Foundation
import Synchronization

/// The key of the source stage: the bytes, where they are looked up and kept, and how
/// they load. Two requests with equal keys share one read or load.
struct SourceStageKey: Hashable, Sendable {
    /// How the bytes are had.
    enum Origin: Hashable, Sendable {
        /// A URL's download: the loader's coalescing key (the URL and what changes the
        /// transfer), and whether partial bytes are reported.
        case url(coalescing: String, partial: Bool)
        /// A custom source's own key.
        case custom(String)
    }

    /// The source's key in the caches; `nil`: not cached.
    let originalKey: String?
    /// The cache the source is looked up and kept in.
    let cache: InstanceIdentity
    /// Whether the cached bytes are read first.
    let reads: Bool
    /// Whether loaded bytes are kept.
    let stores: Bool
    /// Whether the source may only come from the cache.
    let cacheOnly: Bool
    /// The most bytes the source may have.
    let maxSourceBytes: Int?
    let origin: Origin
    /// The request's own loader; `nil`: the manager's.
    let loader: InstanceIdentity?
    /// The request's own freshness rule for cached bytes; `nil`: the cache's.
    let freshness: CacheFreshness?
}

/// The key of the decoded-image stage: the source's, and how it is decoded.
struct DecodeStageKey: Hashable, Sendable {
    let source: SourceStageKey
    let plan: DecodePlan
    /// The request's own coder; `nil`: the manager's.
    let coder: InstanceIdentity?
}

/// The key of the processed-image stage: the decode's, and the transformer's key (`nil`:
/// the decoded image itself). Whether animations are transformed is not part of it: a
/// waiter that wants the other choice gets it from the decoded image that comes with the
/// processed one.
struct ProcessStageKey: Hashable, Sendable {
    let decode: DecodeStageKey
    let transformer: String?
}

/// The key under which identical image loads (``ImageOutput/image``, ``ImageOutput/data``)
/// share one result and one store.
struct ImageStageKey: Hashable, Sendable {
    /// What the result is made of.
    enum Input: Hashable, Sendable {
        /// The source's bytes as they are.
        case bytes(SourceStageKey)
        /// The processed image.
        case processed(ProcessStageKey)
    }

    let input: Input
    /// Whether an animation is transformed frame by frame: the processed stage gives either
    /// choice, the result only one. (The cache key, SDWebImage's, does not say.)
    let transformsAnimations: Bool
    /// The result's cache and tiers.
    let cache: InstanceIdentity
    let query: CacheType
    let store: CacheType
    /// A serializer's identity: closures cannot be compared, so a load with one never joins another.
    let serializer: InstanceIdentity?
    let waitsForStore: Bool
    let deliversPreviews: Bool
    let revalidates: Bool
    /// The request's own freshness rule for the cached result; `nil`: the cache's.
    let freshness: CacheFreshness?
    /// For a result that is not its source: whether the decoded source is looked up and kept in memory.
    let sourceMemory: SourceMemory?

    /// Whether the decoded source is looked up (`query`) and kept (`store`) in memory.
    struct SourceMemory: Hashable, Sendable {
        let query: Bool
        let store: Bool
    }
}

/// The key under which identical encoded outputs share one making and one store.
struct VariantStageKey: Hashable, Sendable {
    /// The output: its cache key, or for an uncached source its URL and what it asks for.
    enum Output: Hashable, Sendable {
        case cached(key: String)
        case uncached(url: URL, variant: String)
    }

    let output: Output
    let cache: InstanceIdentity
    let query: CacheType
    let store: CacheType
    let waitsForStore: Bool
    let cacheOnly: Bool
    /// A revalidation of the cached output is not answered by a making that read it.
    let revalidates: Bool
    /// The request's own freshness rule for the cached output; `nil`: the cache's.
    let freshness: CacheFreshness?
    /// A conditional making can end in a 304, which only its own waiters may get.
    let conditions: SourceConditions?
    /// For an alternative source's attempt (``SourceAttempt``): how that source loads. An
    /// output cached under the primary source's key is made from another source then, and
    /// a making of the primary's (which may be failing) must not answer it. `nil` for the
    /// primary source, whatever alternatives its request has.
    let alternative: SourceStageKey.Origin?
}

/// The identity of an instance (a cache, a loader, a coder, a closure) in a stage key.
enum InstanceIdentity: Hashable, Sendable {
    /// An instance of a class.
    case object(ObjectIdentifier)
    /// Unique to one request: values and closures cannot be told apart, so work is never
    /// shared through them.
    case unique(Int)

    /// The object's identity for an instance of a class; for a value, a new unique identity.
    static func of(_ instance: Any) -> InstanceIdentity {
        if type(of: instance) is AnyClass { return .object(ObjectIdentifier(instance as AnyObject)) }
        return unique()
    }

    /// The identity of a request's own instance: `nil` (the manager's) when it has none.
    static func of(own instance: Any?) -> InstanceIdentity? {
        instance.map { of($0) }
    }

    private static let counter = Atomic<Int>(0)

    /// An identity used once.
    static func unique() -> InstanceIdentity {
        .unique(counter.add(1, ordering: .relaxed).newValue)
    }
}
