import WebImageLocking

/// A thread-safe in-memory cache with a total-cost limit and a count limit, evicting the
/// least recently used entry first.
///
/// Reading an entry makes it the most recently used; a hit costs one dictionary lookup and
/// a few index updates under one lock, with no allocation. An entry whose cost is over
/// ``entryCostFraction`` of ``totalCostLimit`` is not kept. Limits can be changed at any
/// time; lowering one evicts at once. Values that leave the cache are released after the
/// lock is dropped, so a costly deinit (an image's pixels) never runs under it.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    let storage: Locked<LRUStorage<Key, Value>>


    /// Creates a cache. A limit of 0 means no limit. `entryCostFraction` is the share of
    /// `totalCostLimit` above which an entry is not kept (1 keeps anything that fits).
    public init(totalCostLimit: Int = 0, countLimit: Int = 0, entryCostFraction: Double = 1) {
        storage = Locked(LRUStorage(costLimit: totalCostLimit, countLimit: countLimit, entryCostFraction: entryCostFraction))
    }

    /// The value stored for `key`, which becomes the most recently used; `nil` if absent.
    @inlinable
    public func value(forKey key: Key) -> Value? {
        storage.withLock { $0.value(forKey: key) }
    }

    /// Stores `value` for `key` with a cost (for images, ``Image/memoryCost``), replacing
    /// any previous value, then evicts least recently used entries until the limits hold.
    /// A value whose cost is over the per-entry fraction is not kept, and the key's previous
    /// value is removed.
    @inlinable
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0) {
        // The replaced and evicted values come back out of the lock and die here, unlocked.
        _ = storage.withLock { $0.setValue(value, forKey: key, cost: cost) }
    }

    /// Removes the value for `key` and returns it, if there was one.
    @inlinable
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        storage.withLock { $0.removeValue(forKey: key) }
    }

    /// Whether `key` has a value, without making it the most recently used.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        storage.withLock { $0.contains(key) }
    }

    /// Removes every value.
    public func removeAll() {
        _ = storage.withLock { $0.removeAll() }
    }

    /// The number of values held.
    public var count: Int {
        storage.withLock { $0.count }
    }

    /// The sum of the costs of the values held.
    public var totalCost: Int {
        storage.withLock { $0.totalCost }
    }

    /// The total-cost limit; 0 means none. Lowering it evicts at once.
    public var totalCostLimit: Int {
        get { storage.withLock { $0.costLimit } }
        set { changeLimits { $0.costLimit = newValue } }
    }

    /// The count limit; 0 means none. Lowering it evicts at once.
    public var countLimit: Int {
        get { storage.withLock { $0.countLimit } }
        set { changeLimits { $0.countLimit = newValue } }
    }

    /// The share of ``totalCostLimit`` above which a new entry is not kept. Entries already
    /// held stay when it changes.
    public var entryCostFraction: Double {
        get { storage.withLock { $0.entryCostFraction } }
        set { storage.withLock { $0.entryCostFraction = newValue } }
    }

    private func changeLimits(_ change: (inout LRUStorage<Key, Value>) -> Void) {
        _ = storage.withLock { storage in
            change(&storage)
            var released: [Value] = []
            storage.evictToLimits(into: &released)
            return released
        }
    }
}
