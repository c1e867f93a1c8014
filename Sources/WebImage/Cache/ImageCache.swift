import Foundation

/// The image cache: decoded images in a memory tier and their encoded bytes in a disk
/// tier, behind one facade shaped like SDWebImage's `SDImageCache`.
///
/// The tiers are a ``MemoryCache`` and a ``DiskCache`` made from the configuration, or
/// either one replaced by a tier of yours (``ImageMemoryCaching``, ``ImageDiskCaching``:
/// SDWebImage's `memoryCacheClass` / `diskCacheClass`) while the other stays.
///
/// Memory answers first; a disk hit is decoded with ``coder`` on a background pool and,
/// when the query includes memory, kept in memory for next time. Keys are plain strings:
/// ``CacheKey`` makes them from URLs and folds transformer keys into them. A caller that
/// decodes with non-default options gets its image kept in memory under the key that
/// decode belongs to (a thumbnail under its thumbnail key), never under the full-size key.
public final class ImageCache: ImageCaching {
    /// The cache the library uses unless told otherwise: default configuration, under
    /// ``CacheConfig/defaultRootDirectory``.
    public static let shared = ImageCache()

    /// A memory tier of yours; `nil` when it is the built-in ``memoryCache``.
    // Two optionals rather than one `any ImageMemoryCaching`: a memory hit through the
    // manager is little more than `imageFromMemory(forKey:)`, and with the built-in tier
    // that is then a direct, inlinable call on `MemoryCache` — no existential to open, no
    // witness-table call — so replacing tiers costs the default one a test for nil. Not an
    // enum of the two: taking the payload out of it copies and retains it on every hit
    // (measured: 12 % of a hit's CPU). Not a generic `ImageCache<Memory>` either: that
    // would change the type of every cache the library and its users name.
    private let customMemory: (any ImageMemoryCaching)?

    /// The configuration the cache was created with.
    public let config: CacheConfig
    /// The built-in memory cache of decoded images (cost: ``Image/memoryCost``), whose
    /// limits can be changed live; `nil` when the memory tier is one of yours.
    public let memoryCache: MemoryCache<String, Image>?
    /// The memory cache of encoded variants (cost: their size in bytes; limit
    /// ``CacheConfig/maxVariantMemoryCost``).
    public let variantMemoryCache: MemoryCache<String, EncodedVariant>
    /// The disk tier: the built-in ``DiskCache`` or one of yours.
    public let diskTier: any ImageDiskCaching
    /// The built-in disk cache of encoded bytes; `nil` when the disk tier is one of yours.
    public let diskCache: DiskCache?
    /// The coder that decodes disk hits, and encodes images stored without their bytes.
    public let coder: any ImageCoder

    /// Creates a cache with `config`, decoding with `coder`.
    ///
    /// - Parameters:
    ///   - config: the limits, directory and expiry of the tiers this cache makes.
    ///   - coder: the coder that decodes disk hits and encodes images stored without bytes.
    ///   - memoryTier: where decoded images are kept; `nil` (the default) makes a
    ///     ``MemoryCache`` with the configuration's memory limits. A tier shared by several
    ///     caches is shared: each stores into it and clears it.
    ///   - diskTier: where encoded bytes are kept; `nil` (the default) makes a ``DiskCache``
    ///     on the configuration's directory, with its expiry and size limit.
    public init(
        config: CacheConfig = CacheConfig(),
        coder: any ImageCoder = ImageCodersManager.shared,
        memoryTier: (any ImageMemoryCaching)? = nil,
        diskTier: (any ImageDiskCaching)? = nil
    ) {
        self.config = config
        switch memoryTier {
        case nil:
            let builtIn = MemoryCache<String, Image>(
                totalCostLimit: config.maxMemoryCost,
                countLimit: config.maxMemoryCount,
                entryCostFraction: config.maxMemoryCostFractionPerEntry
            )
            customMemory = nil
            memoryCache = builtIn
        case let builtIn as MemoryCache<String, Image>:
            customMemory = nil
            memoryCache = builtIn
        case let tier?:
            customMemory = tier
            memoryCache = nil
        }
        self.variantMemoryCache = MemoryCache(totalCostLimit: config.maxVariantMemoryCost, countLimit: 0, entryCostFraction: 0.25)
        let disk = diskTier ?? DiskCache(config: config)
        self.diskTier = disk
        self.diskCache = disk as? DiskCache
        self.coder = coder
    }

    /// The memory tier: the built-in ``MemoryCache`` or one of yours.
    public var memoryTier: any ImageMemoryCaching {
        customMemory ?? memoryCache.unsafelyUnwrapped
    }

    // MARK: Memory

    /// Stores `image` in memory under `key`, at once (unless
    /// ``CacheConfig/shouldCacheImagesInMemory`` is off, or the image costs more than the
    /// per-entry fraction of the memory limit).
    public func storeToMemory(_ image: Image, forKey key: String) {
        guard config.shouldCacheImagesInMemory else { return }
        if memoryCache != nil {
            memoryCache.unsafelyUnwrapped.setValue(image, forKey: key, cost: image.memoryCost)
        } else {
            customMemory.unsafelyUnwrapped.setImage(image, forKey: key, cost: image.memoryCost)
        }
    }

    /// ``CacheConfig/freshness``.
    public var freshness: CacheFreshness { config.freshness }

    /// ``variantMemoryCache``.
    public var variantMemory: MemoryCache<String, EncodedVariant>? { variantMemoryCache }

    /// The encoded variant in memory for `key`, if any.
    public func variantFromMemory(forKey key: String) -> EncodedVariant? {
        variantMemoryCache.value(forKey: key)
    }

    /// Keeps `variant` in memory under `key` (unless it is over a quarter of
    /// ``CacheConfig/maxVariantMemoryCost``).
    public func storeVariantToMemory(_ variant: EncodedVariant, forKey key: String) {
        variantMemoryCache.setValue(variant, forKey: key, cost: variant.count)
    }

    /// The format an image stored without its bytes is encoded in (SDWebImage's rule):
    /// its own format when `coder` can write it — for an animation, one that keeps the
    /// frames (GIF or WebP); else GIF for an animation, PNG for a still image with alpha
    /// and JPEG without. An animation is never flattened into one still image.
    public static func diskFormat(for image: Image, coder: any ImageCoder = ImageCodersManager.shared) -> ImageFormat {
        if image.isAnimated {
            return image.format.supportsAnimation && coder.canEncode(image.format) ? image.format : .gif
        }
        if image.format != .unknown, coder.canEncode(image.format) { return image.format }
        return image.hasAlpha ? .png : .jpeg
    }

    // MARK: Querying

    // Always inlined: a manager's memory hit calls this on the concrete cache, and the
    // call itself is about 3 % of the hit.
    /// The image in memory for `key`, if any.
    @inline(__always)
    public func imageFromMemory(forKey key: String) -> Image? {
        // A test for nil and a guaranteed reference: binding the optional, or calling
        // through it, retains and releases the tier on every hit (about 4 % of a hit
        // through the manager). The tier is a constant of this cache, alive while it is.
        // Exactly one of the two is set.
        if memoryCache != nil {
            return Unmanaged.passUnretained(memoryCache.unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.value(forKey: key) }
        }
        return customMemory.unsafelyUnwrapped.image(forKey: key)
    }

    /// The memory key an image decoded from `key`'s bytes with `decodeOptions` belongs
    /// under, or `nil` when it belongs under none: a thumbnail decode belongs under the
    /// thumbnail key (``CacheKey/thumbnailKey(_:size:preserveAspectRatio:)``, unless `key`
    /// already names a thumbnail), and a first-frame decode of bytes in a format that can
    /// animate belongs nowhere (it may be one frame of many, and the key stands for all).
    public static func memoryKey(forKey key: String, decodeOptions: ImageDecodeOptions, data: Data?) -> String? {
        if decodeOptions.firstFrameOnly, let data, ImageFormat(data: data).supportsAnimation { return nil }
        return memoryLookupKey(forKey: key, decodeOptions: decodeOptions)
    }

    /// Where memory is asked for a decode of `key` with `decodeOptions`.
    static func memoryLookupKey(forKey key: String, decodeOptions: ImageDecodeOptions) -> String {
        guard let size = decodeOptions.thumbnailPixelSize, !CacheKey.isThumbnailKey(key) else { return key }
        return CacheKey.thumbnailKey(key, size: size, preserveAspectRatio: decodeOptions.preserveAspectRatio)
    }

    /// `image`, or its first frame when `decodeOptions` asks for the first frame only.
    static func applyingFirstFrameOnly(_ image: Image, _ decodeOptions: ImageDecodeOptions) -> Image {
        decodeOptions.firstFrameOnly ? firstFrame(of: image) : image
    }

    /// The first frame of an animation; a still image as it is.
    static func firstFrame(of image: Image) -> Image {
        guard image.isAnimated else { return image }
        // Extracting a frame from pixels in memory fails only on an allocation failure.
        return (try? image.frame(at: 0)) ?? image
    }
}
