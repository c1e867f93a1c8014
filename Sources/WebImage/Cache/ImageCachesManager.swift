import Foundation
import WebImageLocking

/// Several caches behind one ``ImageCaching``: SDWebImage's `SDImageCachesManager`.
///
/// ``caches`` is a priority queue in SDWebImage's order: the last cache has the highest
/// priority and is asked first, so a fast local cache in front of a slower shared one is
/// `[shared, local]`, and ``addCache(_:)`` puts a cache in front of the others. The manager
/// is its own memory and disk tier: each call runs over the caches' tiers by the
/// ``ImageCachesPolicy`` of its kind. The defaults are SDWebImage's: lookups
/// (``image(forKey:)``, ``entrySync(forKey:)``, ``variantFromMemory(forKey:)``) and
/// ``containsSync(forKey:)`` ask one cache after another until one has the key, stores go
/// to the highest-priority cache only, removals and clears go to every cache.
///
/// Beyond SDWebImage, a lookup that finds the key in a lower cache fills the higher ones
/// with it (``fillsHigherCachesOnHit``), so the next lookup is answered by the first cache:
///
///     var sharedConfig = CacheConfig(rootDirectory: "/mnt/shared/images")
///     sharedConfig.shouldCacheImagesInMemory = false        // the local cache keeps decoded images
///     let caches = ImageCachesManager(caches: [ImageCache(config: sharedConfig), ImageCache()])
///     let manager = ImageManager(cache: caches)
///
/// Each ``ImageCache`` in the chain keeps its own memory tier; give memory to one of them.
public final class ImageCachesManager: ImageCaching {
    struct State {
        var caches: [any ImageCaching]
        var queryPolicy = ImageCachesPolicy.serial
        var storePolicy = ImageCachesPolicy.highestOnly
        var removePolicy = ImageCachesPolicy.concurrent
        var containsPolicy = ImageCachesPolicy.serial
        var clearPolicy = ImageCachesPolicy.concurrent
        var fillsHigherCachesOnHit = true
    }

    private let state: InlineLocked<State>

    /// The coder that decodes what a query finds in the caches' disk tiers, and encodes
    /// images stored without their bytes.
    public let coder: any ImageCoder

    /// Creates a manager over `caches`, the last with the highest priority, decoding and
    /// encoding with `coder`.
    public init(caches: [any ImageCaching] = [], coder: any ImageCoder = ImageCodersManager.shared) {
        state = InlineLocked(State(caches: caches))
        self.coder = coder
    }

    // MARK: Configuration

    /// The caches, the last with the highest priority (SDWebImage's order). Changes apply
    /// to operations started afterwards.
    public var caches: [any ImageCaching] {
        get { state.withLock { $0.caches } }
        set { state.withLock { $0.caches = newValue } }
    }

    /// Adds `cache` at the end of ``caches``, with the highest priority (in front of the
    /// others), as SDWebImage's `addCache:` does.
    public func addCache(_ cache: any ImageCaching) {
        state.withLock { $0.caches.append(cache) }
    }

    /// Removes `cache` (compared by identity; a cache that is not a class instance is
    /// removed by ``caches``' setter instead).
    public func removeCache(_ cache: any ImageCaching & AnyObject) {
        state.withLock { state in
            state.caches.removeAll { ($0 as AnyObject) === cache }
        }
    }

    /// How lookups run: ``image(forKey:)``, ``entrySync(forKey:)``,
    /// ``variantFromMemory(forKey:)``. Default ``ImageCachesPolicy/serial``.
    public var queryPolicy: ImageCachesPolicy {
        get { state.withLock { $0.queryPolicy } }
        set { state.withLock { $0.queryPolicy = newValue } }
    }

    /// How stores run. Default ``ImageCachesPolicy/highestOnly``.
    public var storePolicy: ImageCachesPolicy {
        get { state.withLock { $0.storePolicy } }
        set { state.withLock { $0.storePolicy = newValue } }
    }

    /// How removals run. Default ``ImageCachesPolicy/concurrent``.
    public var removePolicy: ImageCachesPolicy {
        get { state.withLock { $0.removePolicy } }
        set { state.withLock { $0.removePolicy = newValue } }
    }

    /// How ``containsSync(forKey:)`` and ``containsImage(forKey:)`` run. Default ``ImageCachesPolicy/serial``.
    public var containsPolicy: ImageCachesPolicy {
        get { state.withLock { $0.containsPolicy } }
        set { state.withLock { $0.containsPolicy = newValue } }
    }

    /// How clears run (``removeAllSync()``, ``removeAllImages()``). Default ``ImageCachesPolicy/concurrent``.
    public var clearPolicy: ImageCachesPolicy {
        get { state.withLock { $0.clearPolicy } }
        set { state.withLock { $0.clearPolicy = newValue } }
    }

    /// Whether a lookup answered by a lower cache stores what it found in the caches above
    /// it (an image or a variant in their memory, bytes with their metadata on their disk),
    /// so the next lookup stops at the first cache. Default `true`; SDWebImage has no such step.
    public var fillsHigherCachesOnHit: Bool {
        get { state.withLock { $0.fillsHigherCachesOnHit } }
        set { state.withLock { $0.fillsHigherCachesOnHit = newValue } }
    }

    /// The caches `policy` addresses, highest priority first (the reverse of ``caches``),
    /// and whether to fill higher
    /// caches on a hit.
    func selection(_ policy: KeyPath<State, ImageCachesPolicy>) -> (caches: [any ImageCaching], policy: ImageCachesPolicy, fills: Bool) {
        state.withLock { state in
            let policy = state[keyPath: policy]
            let caches: [any ImageCaching]
            switch policy {
            case .serial, .concurrent: caches = state.caches.reversed()
            case .highestOnly: caches = state.caches.last.map { [$0] } ?? []
            case .lowestOnly: caches = state.caches.first.map { [$0] } ?? []
            }
            return (caches, policy, state.fillsHigherCachesOnHit)
        }
    }

    // MARK: Tiers

    /// The caches' memory tiers, run over as the policies say: the manager itself.
    public var memoryTier: any ImageMemoryCaching { self }

    /// The caches' disk tiers, run over as the policies say: the manager itself.
    public var diskTier: any ImageDiskCaching { self }

    /// The first encoded variant held in memory for `key` in the caches ``queryPolicy`` asks,
    /// highest priority first; with ``fillsHigherCachesOnHit``, the caches above the one that
    /// has it keep it too.
    public func variantFromMemory(forKey key: String) -> EncodedVariant? {
        firstInMemory { $0.variantFromMemory(forKey: key) } keep: { $0.storeVariantToMemory($1, forKey: key) }
    }

    /// Keeps `variant` in memory in the caches ``storePolicy`` names.
    public func storeVariantToMemory(_ variant: EncodedVariant, forKey key: String) {
        for cache in selection(\.storePolicy).caches { cache.storeVariantToMemory(variant, forKey: key) }
    }

    // MARK: Running over the caches

    /// What `lookup` finds first in the caches ``queryPolicy`` asks, highest priority
    /// first; with ``fillsHigherCachesOnHit``, `keep` puts it in the caches above the one
    /// that had it.
    func firstInMemory<Found>(_ lookup: (any ImageCaching) -> Found?, keep: (any ImageCaching, Found) -> Void) -> Found? {
        let (caches, _, fills) = selection(\.queryPolicy)
        for (index, cache) in caches.enumerated() {
            guard let found = lookup(cache) else { continue }
            if fills {
                for higher in caches[..<index] { keep(higher, found) }
            }
            return found
        }
        return nil
    }

    /// Runs `body` on each of `caches` (in order, or all at once on threads of their own)
    /// and returns the answers in the caches' order.
    func each<Answer: Sendable>(_ caches: [any ImageCaching], concurrently: Bool, _ body: @Sendable (any ImageCaching) -> Answer) -> [Answer] {
        guard concurrently, caches.count > 1 else { return caches.map(body) }
        let answers = InlineLocked<[Int: Answer]>([:])
        DispatchQueue.concurrentPerform(iterations: caches.count) { index in
            let answer = body(caches[index])
            answers.withLock { $0[index] = answer }
        }
        return answers.withLock { answers in caches.indices.map { answers[$0].unsafelyUnwrapped } }
    }

    /// The highest-priority cache for which `lookup` finds something, and what it found:
    /// asking one after another and stopping at the first hit, or all at once.
    func firstHit<Found: Sendable>(in caches: [any ImageCaching], concurrently: Bool, _ lookup: @Sendable (any ImageCaching) -> Found?) -> (Int, Found)? {
        guard concurrently, caches.count > 1 else {
            for (index, cache) in caches.enumerated() {
                if let found = lookup(cache) { return (index, found) }
            }
            return nil
        }
        for (index, answer) in each(caches, concurrently: true, lookup).enumerated() {
            if let answer { return (index, answer) }
        }
        return nil
    }
}
