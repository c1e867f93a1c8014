import Foundation
import Testing
@testable import WebImage

@Suite("Memory cache")
struct MemoryCacheTests {
    @Test func C4_costLimitEvictsLeastRecentlyUsed() {
        let cache = MemoryCache<String, Int>(totalCostLimit: 100)
        cache.setValue(1, forKey: "a", cost: 30)
        cache.setValue(2, forKey: "b", cost: 30)
        cache.setValue(3, forKey: "c", cost: 30)
        #expect(cache.value(forKey: "a") == 1) // a is now the most recently used
        cache.setValue(4, forKey: "d", cost: 30) // 120 > 100: evicts b, the least recently used
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "a") == 1)
        #expect(cache.value(forKey: "c") == 3)
        #expect(cache.value(forKey: "d") == 4)
        #expect(cache.totalCost == 90)
        #expect(cache.count == 3)
        cache.setValue(5, forKey: "e", cost: 80) // evicts a, c, d in LRU order until it fits
        #expect(cache.count == 1)
        #expect(cache.totalCost == 80)
        #expect(cache.value(forKey: "e") == 5)
    }

    @Test func C4_countLimitEvictsLeastRecentlyUsed() {
        let cache = MemoryCache<Int, String>(countLimit: 3)
        for key in 0..<3 { cache.setValue("\(key)", forKey: key) }
        _ = cache.value(forKey: 0)
        _ = cache.value(forKey: 1)
        cache.setValue("3", forKey: 3) // evicts 2
        cache.setValue("4", forKey: 4) // evicts 0
        #expect(cache.count == 3)
        #expect(cache.value(forKey: 2) == nil)
        #expect(cache.value(forKey: 0) == nil)
        #expect(cache.value(forKey: 1) == "1")
        #expect(cache.value(forKey: 3) == "3")
        #expect(cache.value(forKey: 4) == "4")
        // Reads above left the order 4, 3, 1 (most recent first); contains does not refresh.
        #expect(cache.contains(1))
        cache.setValue("5", forKey: 5)
        #expect(!cache.contains(1))
        #expect(cache.contains(3) && cache.contains(4) && cache.contains(5))
    }

    @Test func C4_entryOverFractionIsNotKept() {
        let cache = MemoryCache<String, Int>(totalCostLimit: 1000, entryCostFraction: 0.25)
        cache.setValue(1, forKey: "small", cost: 250)
        cache.setValue(2, forKey: "big", cost: 251)
        #expect(cache.value(forKey: "small") == 1)
        #expect(cache.value(forKey: "big") == nil)
        #expect(cache.count == 1)
        // Replacing a kept value with one too big removes the old one as well.
        cache.setValue(3, forKey: "small", cost: 900)
        #expect(cache.value(forKey: "small") == nil)
        #expect(cache.totalCost == 0)
    }

    @Test func C4_loweringLimitsEvictsAtOnce() {
        let cache = MemoryCache<Int, Int>(totalCostLimit: 0, countLimit: 0)
        for key in 0..<10 { cache.setValue(key, forKey: key, cost: 10) }
        _ = cache.value(forKey: 0)
        cache.countLimit = 5
        #expect(cache.count == 5)
        #expect(cache.contains(0))
        #expect(!cache.contains(1))
        cache.totalCostLimit = 20
        #expect(cache.count == 2)
        #expect(cache.totalCost == 20)
        #expect(cache.contains(0) && cache.contains(9))
    }

    @Test func C4_replaceRemoveAndReuseSlots() {
        let cache = MemoryCache<String, Int>(totalCostLimit: 100)
        cache.setValue(1, forKey: "a", cost: 10)
        cache.setValue(2, forKey: "a", cost: 40)
        #expect(cache.count == 1)
        #expect(cache.totalCost == 40)
        #expect(cache.removeValue(forKey: "a") == 2)
        #expect(cache.removeValue(forKey: "a") == nil)
        #expect(cache.totalCost == 0)
        for round in 0..<3 {
            for key in 0..<20 { cache.setValue(key + round, forKey: "k\(key)", cost: 10) }
            #expect(cache.count == 10)
            #expect(cache.value(forKey: "k19") == 19 + round)
            #expect(cache.value(forKey: "k9") == nil)
        }
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
        cache.setValue(7, forKey: "x", cost: 1)
        #expect(cache.value(forKey: "x") == 7)
    }

    @Test func C4_imageCacheCostIsDecodedBytes() async throws {
        try await withTemporaryDirectory { directory in
            var config = testConfig(directory)
            let (image, _) = try makePNG(width: 10, height: 10) // 10 × 10 × 3 = 300 bytes
            config.maxMemoryCost = 1000
            config.maxMemoryCostFractionPerEntry = 0.5
            let cache = ImageCache(config: config)
            #expect(image.memoryCost == 300)
            cache.storeToMemory(image, forKey: "a")
            cache.storeToMemory(image, forKey: "b")
            cache.storeToMemory(image, forKey: "c")
            #expect(cache.memoryCache?.totalCost == 900)
            _ = cache.imageFromMemory(forKey: "a")
            cache.storeToMemory(image, forKey: "d")
            #expect(cache.imageFromMemory(forKey: "b") == nil)
            #expect(cache.imageFromMemory(forKey: "a") != nil)
            // 20 × 20 × 3 = 1200 bytes: over half the limit, never kept.
            let (big, _) = try makePNG(width: 20, height: 20)
            cache.storeToMemory(big, forKey: "big")
            #expect(cache.imageFromMemory(forKey: "big") == nil)
        }
    }

    @Test func C9_memoryCacheUnderConcurrentAccess() async {
        let cache = MemoryCache<Int, [Int]>(totalCostLimit: 500, countLimit: 40)
        await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var torn = 0
                    for step in 0..<2000 {
                        let key = (step * 7 + task) % 64
                        if step % 3 == 0 {
                            cache.setValue([Int](repeating: key, count: 4), forKey: key, cost: 10 + key % 5)
                        } else if step % 17 == 0 {
                            cache.removeValue(forKey: key)
                        } else if let value = cache.value(forKey: key), value != [key, key, key, key] {
                            torn += 1
                        }
                    }
                    return torn
                }
            }
            var torn = 0
            for await count in group { torn += count }
            #expect(torn == 0)
        }
        #expect(cache.count <= 40)
        #expect(cache.totalCost <= 500)
    }
}
