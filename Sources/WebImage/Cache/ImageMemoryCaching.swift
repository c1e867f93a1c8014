/// The memory tier of a cache (``ImageCaching/memoryTier``): decoded images under string
/// keys, asked on the caller's thread (SDWebImage's `SDMemoryCache` protocol).
///
/// ``ImageCache`` keeps its images in a ``MemoryCache`` unless it is given a tier of
/// yours (``ImageCache/init(config:coder:memoryTier:diskTier:)``, SDWebImage's
/// `SDImageCacheConfig.memoryCacheClass`): one shared by several caches, one that counts
/// or logs, one with another eviction rule. The disk tier stays as it is.
///
/// Every call may come from any thread at any time, and ``image(forKey:)`` is on the path
/// of every load — a memory hit through the manager is little more than this call — so
/// keep it to a lookup under a short lock, without I/O or waiting.
public protocol ImageMemoryCaching: Sendable {
    /// The image held for `key`, if any.
    func image(forKey key: String) -> Image?

    /// Holds `image` for `key`, replacing any image held for it; `cost` is its
    /// ``Image/memoryCost``, for a tier with a budget. A tier may decline an image (too
    /// large for its limits); it must then drop the key's previous image too, so that no
    /// stale image answers for the key.
    func setImage(_ image: Image, forKey key: String, cost: Int)

    /// Drops the image held for `key`, if any.
    func removeImage(forKey key: String)

    /// Whether an image is held for `key`, without counting as a use of it.
    func containsImage(forKey key: String) -> Bool

    /// Drops every image.
    func removeAllImages()
}

/// The built-in memory tier: an LRU cache with a cost limit and a count limit.
extension MemoryCache: ImageMemoryCaching where Key == String, Value == Image {
    /// ``value(forKey:)``: the image, made the most recently used.
    @inlinable
    public func image(forKey key: String) -> Image? { value(forKey: key) }

    /// ``setValue(_:forKey:cost:)``.
    @inlinable
    public func setImage(_ image: Image, forKey key: String, cost: Int) { setValue(image, forKey: key, cost: cost) }

    /// ``removeValue(forKey:)``.
    @inlinable
    public func removeImage(forKey key: String) { removeValue(forKey: key) }

    /// ``contains(_:)``.
    @inlinable
    public func containsImage(forKey key: String) -> Bool { contains(key) }

    /// ``removeAll()``.
    public func removeAllImages() { removeAll() }
}
