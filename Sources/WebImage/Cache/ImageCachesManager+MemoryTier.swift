/// The memory tier of a chain of caches: each call runs over the caches' memory (their
/// images and their variants) as the manager's policies say.
extension ImageCachesManager: ImageMemoryCaching {
    /// The first image held in memory for `key` in the caches ``queryPolicy`` asks, highest
    /// priority first; with ``fillsHigherCachesOnHit``, the caches above the one that has it
    /// keep it too.
    public func image(forKey key: String) -> Image? {
        firstInMemory { $0.imageFromMemory(forKey: key) } keep: { $0.storeToMemory($1, forKey: key) }
    }

    /// Puts `image` in memory in the caches ``storePolicy`` names (each by its own rules:
    /// a cache configured without memory keeps nothing).
    public func setImage(_ image: Image, forKey key: String, cost: Int) {
        for cache in selection(\.storePolicy).caches { cache.storeToMemory(image, forKey: key) }
    }

    /// Drops `key`'s image and variant from memory in the caches ``removePolicy`` names.
    public func removeImage(forKey key: String) {
        for cache in selection(\.removePolicy).caches {
            cache.memoryTier.removeImage(forKey: key)
            cache.variantMemory?.removeValue(forKey: key)
        }
    }

    /// Whether a cache ``containsPolicy`` asks holds an image or a variant for `key` in memory.
    public func containsImage(forKey key: String) -> Bool {
        selection(\.containsPolicy).caches.contains { cache in
            cache.memoryTier.containsImage(forKey: key) || cache.variantMemory?.contains(key) == true
        }
    }

    /// Empties memory (images and variants) in the caches ``clearPolicy`` names.
    public func removeAllImages() {
        for cache in selection(\.clearPolicy).caches {
            cache.memoryTier.removeAllImages()
            cache.variantMemory?.removeAll()
        }
    }
}
