import Foundation

/// What ``ImageManager`` needs of a cache (SDWebImage's `SDImageCache` protocol): two tiers,
/// each replaceable alone, so that a cache of your own (a shared directory, a key-value
/// store, a chain of caches) takes the place of ``ImageCache`` anywhere the manager takes
/// one (``ImageManager/cache``, ``ImageRequest/Caching/cache``,
/// ``ImageRequest/OriginalCaching/cache``).
///
/// - ``memoryTier``: decoded ``Image`` values under string keys, asked on the caller's
///   thread for every load (``ImageMemoryCaching``);
/// - ``diskTier``: stored bytes with their ``CacheMetadata`` (``ImageDiskCaching``): the
///   original bytes as downloaded, or any encoded variant of them. The manager reads them
///   on its coding and I/O threads and decodes them itself with the request's coder.
///
/// The rest of what a cache does — ``query(forKey:cacheType:decodeOptions:)``,
/// ``store(_:data:forKey:metadata:cacheType:)``, ``remove(forKey:cacheType:)``,
/// ``clear(_:)``, ``contains(forKey:)`` — is built from the two tiers, the same for every
/// cache. The other requirements have defaults and are optional: ``coder`` (what decodes a
/// query's bytes), the ``freshness`` of its entries, a memory tier of encoded variants (``variantMemory``, for the hits a
/// server answers most), and the memory calls a cache may answer faster than through its
/// tier's existential (``imageFromMemory(forKey:)``, ``storeToMemory(_:forKey:)``).
///
/// ``CacheType`` names the tiers in every call: `.memory` is the image tier (and the
/// variants held in memory), `.disk` the bytes tier, whatever the storage behind them.
public protocol ImageCaching: Sendable {
    /// The tier of decoded images.
    var memoryTier: any ImageMemoryCaching { get }

    /// The tier of stored bytes and their metadata.
    var diskTier: any ImageDiskCaching { get }

    /// The coder that decodes the bytes a ``query(forKey:cacheType:decodeOptions:)`` finds,
    /// and encodes images stored without their bytes. The default is
    /// ``ImageCodersManager/shared``.
    var coder: any ImageCoder { get }

    /// The memory tier of encoded variants, if the cache has one; the default is `nil`.
    var variantMemory: MemoryCache<String, EncodedVariant>? { get }

    /// How long the cache's entries are used without asking their source again, unless a
    /// request says otherwise; the default is ``CacheFreshness/default``.
    var freshness: CacheFreshness { get }

    /// The decoded image held in memory for `key`, if any. Called on the caller's thread
    /// for every load: keep it cheap and non-blocking. The default asks ``memoryTier``.
    func imageFromMemory(forKey key: String) -> Image?

    /// Puts `image` in memory under `key`, visible at once to ``imageFromMemory(forKey:)``
    /// (a cache may decline, e.g. an image over its limits). The default gives it to
    /// ``memoryTier`` with its ``Image/memoryCost``.
    func storeToMemory(_ image: Image, forKey key: String)

    /// The encoded variant held in memory for `key`, if any; asked synchronously for every
    /// variant request, so keep it cheap. The default asks ``variantMemory``.
    func variantFromMemory(forKey key: String) -> EncodedVariant?

    /// Keeps `variant` in memory under `key` (a cache may decline). The default gives it to
    /// ``variantMemory``, at the cost of its bytes.
    func storeVariantToMemory(_ variant: EncodedVariant, forKey key: String)
}

extension ImageCaching {
    /// ``ImageCodersManager/shared``.
    public var coder: any ImageCoder { ImageCodersManager.shared }

    /// None: a cache without a memory tier of variants.
    public var variantMemory: MemoryCache<String, EncodedVariant>? { nil }

    /// ``CacheFreshness/default``: as long as the source says.
    public var freshness: CacheFreshness { .default }

    /// ``memoryTier``'s image for `key`.
    public func imageFromMemory(forKey key: String) -> Image? {
        memoryTier.image(forKey: key)
    }

    /// Gives `image` to ``memoryTier`` at its ``Image/memoryCost``.
    public func storeToMemory(_ image: Image, forKey key: String) {
        memoryTier.setImage(image, forKey: key, cost: image.memoryCost)
    }

    /// ``variantMemory``'s variant for `key`.
    public func variantFromMemory(forKey key: String) -> EncodedVariant? {
        variantMemory?.value(forKey: key)
    }

    /// Gives `variant` to ``variantMemory`` at the cost of its bytes.
    public func storeVariantToMemory(_ variant: EncodedVariant, forKey key: String) {
        variantMemory?.setValue(variant, forKey: key, cost: variant.count)
    }
}
