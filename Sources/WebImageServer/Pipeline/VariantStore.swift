import Foundation
import WebImage

/// The cache of encoded variants: bytes in memory (cost: their size) and on disk with their
/// ETag. Only successful variants are ever stored here.
struct VariantStore: Sendable {
    /// Where a lookup found the variant.
    enum Source: String, Sendable {
        case memory, disk
    }

    let memory: MemoryCache<String, EncodedVariant>
    let disk: DiskCache

    init(config: ServerConfig) {
        var cacheConfig = CacheConfig()
        cacheConfig.rootDirectory = config.cacheDirectory
        cacheConfig.namespace = "proxy-variants"
        cacheConfig.maxDiskSize = config.cacheMaxDiskSize / 2
        cacheConfig.maxDiskAge = config.cacheMaxAge
        disk = DiskCache(config: cacheConfig)
        // An entry may take a quarter of the memory budget: variants are small next to it.
        memory = MemoryCache(totalCostLimit: max(1, config.cacheMaxMemory), countLimit: 0, entryCostFraction: 0.25)
    }

    /// The variant under `key` if it is in memory; the disk is not looked at.
    func memoryLookup(_ key: String) -> EncodedVariant? {
        memory.value(forKey: key)
    }

    /// The variant under `key`: memory first, then disk (which refills memory).
    func lookup(_ key: String) async -> (EncodedVariant, Source)? {
        if let variant = memory.value(forKey: key) { return (variant, .memory) }
        guard let entry = await disk.entry(forKey: key) else { return nil }
        let variant = EncodedVariant(data: entry.data, etag: entry.metadata.etag, lastModified: entry.metadata.storedDate)
        memory.setValue(variant, forKey: key, cost: variant.data.count)
        return (variant, .disk)
    }

    /// Stores `variant` in memory at once and on disk in the background.
    func store(_ variant: EncodedVariant, forKey key: String) {
        memory.setValue(variant, forKey: key, cost: variant.data.count)
        let disk = self.disk
        Task {
            try? await disk.store(variant.data, forKey: key, metadata: CacheMetadata(etag: variant.etag, storedDate: variant.lastModified))
        }
    }
}
