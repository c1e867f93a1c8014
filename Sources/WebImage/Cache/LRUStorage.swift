/// The state behind ``MemoryCache``: a doubly linked LRU list kept in one array of nodes
/// (links are indices, so a hit moves a node without allocating) and a dictionary from
/// key to node index. Not thread-safe by itself: ``MemoryCache`` keeps it in a `Mutex`.
///
/// It is `@usableFromInline` and its hot paths `@inlinable`, so that a client module
/// gets them specialised for its key and value types instead of running generic code
/// through witness tables.
@usableFromInline
struct LRUStorage<Key: Hashable, Value> {
    @usableFromInline
    struct Node {
        /// `nil` while the node is on the free list.
        @usableFromInline var key: Key?
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        /// Towards the most recently used end; -1 at the head.
        @usableFromInline var previous: Int
        /// Towards the least recently used end; -1 at the tail. Links the free list too.
        @usableFromInline var next: Int

        @inlinable
        init(key: Key?, value: Value?, cost: Int, previous: Int, next: Int) {
            self.key = key
            self.value = value
            self.cost = cost
            self.previous = previous
            self.next = next
        }
    }

    @usableFromInline var nodes: ContiguousArray<Node> = []
    @usableFromInline var slots: [Key: Int] = [:]
    /// Most recently used node, or -1.
    @usableFromInline var head = -1
    /// Least recently used node, or -1.
    @usableFromInline var tail = -1
    /// First free node, or -1.
    @usableFromInline var free = -1
    @usableFromInline var totalCost = 0
    @usableFromInline var costLimit: Int
    @usableFromInline var countLimit: Int
    @usableFromInline var entryCostFraction: Double

    @inlinable
    init(costLimit: Int, countLimit: Int, entryCostFraction: Double) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.entryCostFraction = entryCostFraction
    }

    @inlinable
    var count: Int { slots.count }

    /// The value for `key`, made the most recently used.
    @inlinable
    mutating func value(forKey key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        if slot != head { moveToFront(slot) }
        return nodes[slot].value
    }

    /// Whether `key` is present, without changing the order.
    @inlinable
    func contains(_ key: Key) -> Bool {
        slots[key] != nil
    }

    /// Stores `value`, then evicts least recently used entries until within the limits.
    /// Returns the values that left the cache (the one replaced, the ones evicted), so that
    /// the caller can release them after unlocking.
    @inlinable
    mutating func setValue(_ value: Value, forKey key: Key, cost rawCost: Int) -> [Value] {
        let cost = max(0, rawCost)
        if !fits(cost) {
            // Too big to keep: it also must not leave an older value visible under the key.
            return removeValue(forKey: key).map { [$0] } ?? []
        }
        var released: [Value] = []
        if let slot = slots[key] {
            if let old = nodes[slot].value { released.append(old) }
            nodes[slot].value = value
            totalCost += cost - nodes[slot].cost
            nodes[slot].cost = cost
            if slot != head { moveToFront(slot) }
        } else {
            let node = Node(key: key, value: value, cost: cost, previous: -1, next: head)
            let slot: Int
            if free >= 0 {
                slot = free
                free = nodes[slot].next
                nodes[slot] = node
            } else {
                slot = nodes.count
                nodes.append(node)
            }
            if head >= 0 { nodes[head].previous = slot } else { tail = slot }
            head = slot
            slots[key] = slot
            totalCost += cost
        }
        evictToLimits(into: &released)
        return released
    }

    /// Whether an entry of `cost` may be kept at all.
    @inlinable
    func fits(_ cost: Int) -> Bool {
        costLimit <= 0 || Double(cost) <= Double(costLimit) * entryCostFraction
    }

    @inlinable
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        return remove(slot: slot)
    }

    /// Evicts from the tail until the cost and count limits hold.
    @inlinable
    mutating func evictToLimits(into released: inout [Value]) {
        while tail >= 0,
              (costLimit > 0 && totalCost > costLimit) || (countLimit > 0 && slots.count > countLimit) {
            if let value = remove(slot: tail) { released.append(value) }
        }
    }

    @inlinable
    mutating func removeAll() -> ContiguousArray<Node> {
        let old = nodes
        self = LRUStorage(costLimit: costLimit, countLimit: countLimit, entryCostFraction: entryCostFraction)
        return old
    }

    @inlinable
    mutating func moveToFront(_ slot: Int) {
        // One uniqueness check for all the link updates instead of one per subscript.
        let head = self.head
        var tail = self.tail
        nodes.withUnsafeMutableBufferPointer { nodes in
            let previous = nodes[slot].previous
            let next = nodes[slot].next
            nodes[previous].next = next
            if next >= 0 { nodes[next].previous = previous } else { tail = previous }
            nodes[slot].previous = -1
            nodes[slot].next = head
            nodes[head].previous = slot
        }
        self.tail = tail
        self.head = slot
    }

    @inlinable
    mutating func remove(slot: Int) -> Value? {
        let previous = nodes[slot].previous
        let next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        if let key = nodes[slot].key { slots[key] = nil }
        let value = nodes[slot].value
        totalCost -= nodes[slot].cost
        nodes[slot] = Node(key: nil, value: nil, cost: 0, previous: -1, next: free)
        free = slot
        return value
    }
}
