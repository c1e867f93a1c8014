import Foundation
import WebImageLocking

/// Several caches behind one ``ImageCaching``: SDWebImage's `SDImageCachesManager`.
///
/// ``caches`` is a priority queue in SDWebImage's order: the last cache has the highest
/// priority and is asked first, so a fast local cache in front of a slower shared one is
/// `[shared, local]`, and ``addCache(_:)`` puts a cache in front of the others. Each kind of
/// operation runs over them by its own ``ImageCachesPolicy``; the defaults are SDWebImage's: lookups (``query(forKey:cacheType:decodeOptions:)``,
/// ``entry(forKey:)``, ``imageFromMemory(forKey:)``) and ``contains(forKey:)`` ask one
/// cache after another until one has the key, stores go to the highest-priority cache
/// only, removals and clears go to every cache at once.
///
/// Beyond SDWebImage, a serial lookup that finds the key in a lower cache fills the higher
/// ones with it (``fillsHigherCachesOnHit``), so the next lookup is answered by the first
/// cache:
///
///     var sharedConfig = CacheConfig(rootDirectory: "/mnt/shared/images")
///     sharedConfig.shouldCacheImagesInMemory = false        // the local cache keeps decoded images
///     let caches = ImageCachesManager(caches: [ImageCache(config: sharedConfig), ImageCache()])
///     let manager = ImageManager(cache: caches)
///
/// Each ``ImageCache`` in the chain keeps its own memory tier; give memory to one of them.
public final class ImageCachesManager: ImageCaching {
    private struct State {
        var caches: [any ImageCaching]
        var queryPolicy = ImageCachesPolicy.serial
        var storePolicy = ImageCachesPolicy.highestOnly
        var removePolicy = ImageCachesPolicy.concurrent
        var containsPolicy = ImageCachesPolicy.serial
        var clearPolicy = ImageCachesPolicy.concurrent
        var fillsHigherCachesOnHit = true
    }

    private let state: InlineLocked<State>

    /// Creates a manager over `caches`, the last with the highest priority.
    public init(caches: [any ImageCaching] = []) {
        state = InlineLocked(State(caches: caches))
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

    /// How lookups run: ``query(forKey:cacheType:decodeOptions:)``, ``entry(forKey:)``,
    /// ``imageFromMemory(forKey:)``. Default ``ImageCachesPolicy/serial``.
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

    /// How ``contains(forKey:)`` runs. Default ``ImageCachesPolicy/serial``.
    public var containsPolicy: ImageCachesPolicy {
        get { state.withLock { $0.containsPolicy } }
        set { state.withLock { $0.containsPolicy = newValue } }
    }

    /// How ``clear(_:)`` runs. Default ``ImageCachesPolicy/concurrent``.
    public var clearPolicy: ImageCachesPolicy {
        get { state.withLock { $0.clearPolicy } }
        set { state.withLock { $0.clearPolicy = newValue } }
    }

    /// Whether a lookup answered by a lower cache stores what it found in the caches above
    /// it (the bytes with their metadata, and a decoded image in their memory tier), so the
    /// next lookup stops at the first cache. Default `true`; SDWebImage has no such step.
    public var fillsHigherCachesOnHit: Bool {
        get { state.withLock { $0.fillsHigherCachesOnHit } }
        set { state.withLock { $0.fillsHigherCachesOnHit = newValue } }
    }

    /// The caches `policy` addresses, highest priority first (the reverse of ``caches``),
    /// and whether to fill higher
    /// caches on a hit.
    private func selection(_ policy: KeyPath<State, ImageCachesPolicy>) -> (caches: [any ImageCaching], policy: ImageCachesPolicy, fills: Bool) {
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

    // MARK: Lookups

    /// The first image held in memory for `key` in the caches ``queryPolicy`` asks, highest
    /// priority first; with ``fillsHigherCachesOnHit``, the caches above the one that has it
    /// keep it too.
    public func imageFromMemory(forKey key: String) -> Image? {
        let (caches, _, fills) = selection(\.queryPolicy)
        for (index, cache) in caches.enumerated() {
            guard let image = cache.imageFromMemory(forKey: key) else { continue }
            if fills {
                for higher in caches[..<index] { higher.storeToMemory(image, forKey: key) }
            }
            return image
        }
        return nil
    }

    /// The first encoded variant held in memory for `key` in the caches ``queryPolicy`` asks,
    /// highest priority first; with ``fillsHigherCachesOnHit``, the caches above the one that
    /// has it keep it too.
    public func variantFromMemory(forKey key: String) -> EncodedVariant? {
        let (caches, _, fills) = selection(\.queryPolicy)
        for (index, cache) in caches.enumerated() {
            guard let variant = cache.variantFromMemory(forKey: key) else { continue }
            if fills {
                for higher in caches[..<index] { higher.storeVariantToMemory(variant, forKey: key) }
            }
            return variant
        }
        return nil
    }

    /// The first entry a cache ``queryPolicy`` asks can read for `key` on the calling thread,
    /// highest priority first.
    public func entrySync(forKey key: String) -> DiskCacheEntry? {
        let (caches, _, _) = selection(\.queryPolicy)
        for cache in caches {
            if let entry = cache.entrySync(forKey: key) { return entry }
        }
        return nil
    }

    /// The stored bytes and metadata for `key` from the first cache ``queryPolicy`` finds them
    /// in; with ``fillsHigherCachesOnHit``, they are also stored in the caches above it.
    public func entry(forKey key: String) async -> DiskCacheEntry? {
        let (caches, policy, fills) = selection(\.queryPolicy)
        let found = await firstHit(in: caches, concurrently: policy == .concurrent) { await $0.entry(forKey: key) }
        guard let (index, entry) = found else { return nil }
        if fills, index > 0 {
            await fill(caches[..<index]) { cache in
                try? await cache.store(nil, data: entry.data, forKey: key, metadata: entry.metadata, cacheType: .disk)
            }
        }
        return entry
    }

    /// Looks `key` up in the caches ``queryPolicy`` asks and returns the first hit; with
    /// ``fillsHigherCachesOnHit``, the caches above the one that answered get its image and bytes.
    public func query(forKey key: String, cacheType: CacheType, decodeOptions: ImageDecodeOptions) async -> CacheQueryResult? {
        let (caches, policy, fills) = selection(\.queryPolicy)
        let found = await firstHit(in: caches, concurrently: policy == .concurrent) {
            await $0.query(forKey: key, cacheType: cacheType, decodeOptions: decodeOptions)
        }
        guard let (index, hit) = found else { return nil }
        if fills, index > 0 {
            let memoryKey = cacheType.includesMemory
                ? ImageCache.memoryKey(forKey: key, decodeOptions: decodeOptions, data: hit.data) : nil
            await fill(caches[..<index]) { cache in
                if let memoryKey { cache.storeToMemory(hit.image, forKey: memoryKey) }
                if let data = hit.data {
                    try? await cache.store(nil, data: data, forKey: key, metadata: hit.metadata ?? CacheMetadata(), cacheType: .disk)
                }
            }
        }
        return hit
    }

    /// The tier holding `key` in the first cache ``containsPolicy`` finds it in;
    /// ``CacheType/none`` when no cache has it.
    public func contains(forKey key: String) async -> CacheType {
        let (caches, policy, _) = selection(\.containsPolicy)
        let found = await firstHit(in: caches, concurrently: policy == .concurrent) { cache -> CacheType? in
            let type = await cache.contains(forKey: key)
            return type == .none ? nil : type
        }
        return found?.1 ?? .none
    }

    /// The stored bytes for `key`: ``entry(forKey:)``'s bytes.
    public func diskData(forKey key: String) async -> Data? {
        await entry(forKey: key)?.data
    }

    /// The metadata stored with `key`'s bytes: ``entry(forKey:)``'s metadata.
    public func metadata(forKey key: String) async -> CacheMetadata? {
        await entry(forKey: key)?.metadata
    }

    // MARK: Writes

    /// Puts `image` in the memory tier of the caches ``storePolicy`` names.
    public func storeToMemory(_ image: Image, forKey key: String) {
        let (caches, _, _) = selection(\.storePolicy)
        for cache in caches { cache.storeToMemory(image, forKey: key) }
    }

    /// Keeps `variant` in memory in the caches ``storePolicy`` names.
    public func storeVariantToMemory(_ variant: EncodedVariant, forKey key: String) {
        let (caches, _, _) = selection(\.storePolicy)
        for cache in caches { cache.storeVariantToMemory(variant, forKey: key) }
    }

    /// Stores in the caches ``storePolicy`` names. The first error a cache throws is
    /// thrown after every cache was asked.
    public func store(_ image: Image?, data: Data?, forKey key: String, metadata: CacheMetadata, cacheType: CacheType) async throws(ImageError) {
        let (caches, policy, _) = selection(\.storePolicy)
        let errors = await each(caches, concurrently: policy == .concurrent) { cache -> ImageError? in
            do throws(ImageError) {
                try await cache.store(image, data: data, forKey: key, metadata: metadata, cacheType: cacheType)
                return nil
            } catch {
                return error
            }
        }
        if let error = errors.compactMap({ $0 }).first { throw error }
    }

    /// Removes `key` from the tiers `cacheType` names in the caches ``removePolicy`` names.
    public func remove(forKey key: String, cacheType: CacheType) async {
        let (caches, policy, _) = selection(\.removePolicy)
        _ = await each(caches, concurrently: policy == .concurrent) { await $0.remove(forKey: key, cacheType: cacheType) }
    }

    /// Empties the tiers `cacheType` names in the caches ``clearPolicy`` names.
    public func clear(_ cacheType: CacheType) async {
        let (caches, policy, _) = selection(\.clearPolicy)
        _ = await each(caches, concurrently: policy == .concurrent) { await $0.clear(cacheType) }
    }

    // MARK: Running over the caches

    /// The highest-priority cache for which `lookup` finds something, and what it found:
    /// asking one after another and stopping at the first hit, or all at once.
    private func firstHit<Found: Sendable>(
        in caches: [any ImageCaching],
        concurrently: Bool,
        _ lookup: @escaping @Sendable (any ImageCaching) async -> Found?
    ) async -> (Int, Found)? {
        guard concurrently, caches.count > 1 else {
            for (index, cache) in caches.enumerated() {
                if let found = await lookup(cache) { return (index, found) }
            }
            return nil
        }
        for (index, answer) in await each(caches, concurrently: true, lookup).enumerated() {
            if let answer { return (index, answer) }
        }
        return nil
    }

    /// Runs `body` on each of `caches` (in order, or all at once) and returns the answers
    /// in the caches' order.
    private func each<Answer: Sendable>(
        _ caches: [any ImageCaching],
        concurrently: Bool,
        _ body: @escaping @Sendable (any ImageCaching) async -> Answer
    ) async -> [Answer] {
        guard concurrently, caches.count > 1 else {
            var answers: [Answer] = []
            for cache in caches { answers.append(await body(cache)) }
            return answers
        }
        return await withTaskGroup(of: (Int, Answer).self) { group in
            for (index, cache) in caches.enumerated() {
                group.addTask { (index, await body(cache)) }
            }
            var answers: [(Int, Answer)] = []
            for await answer in group { answers.append(answer) }
            return answers.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Writes a hit back into `caches` (the ones above the cache that answered), all at once.
    private func fill(_ caches: ArraySlice<any ImageCaching>, _ write: @escaping @Sendable (any ImageCaching) async -> Void) async {
        _ = await each(Array(caches), concurrently: true, write)
    }
}
