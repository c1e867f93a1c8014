import Foundation

/// What ``ImageManager`` needs of a cache: SDWebImage's `SDImageCache` protocol, so that
/// a cache of your own (a shared directory, a key-value store, a chain of caches) takes
/// the place of ``ImageCache`` anywhere the manager takes one (``ImageManager/cache``,
/// ``ImageRequest/Caching/cache``, ``ImageRequest/OriginalCaching/cache``).
///
/// A cache holds entries under string keys in two tiers:
/// - a fast tier of decoded ``Image`` values, asked synchronously
///   (``imageFromMemory(forKey:)``, ``storeToMemory(_:forKey:)``): the manager's memory
///   hits, which must cost little more than a dictionary lookup;
/// - a tier of stored bytes with their ``CacheMetadata`` (``entry(forKey:)``): the original
///   bytes as downloaded, or any encoded variant of them. The manager reads the bytes back
///   (``entrySync(forKey:)`` on a coding thread when the cache ``answersSynchronously``)
///   and decodes them itself with the request's coder; it asks
///   ``query(forKey:cacheType:decodeOptions:)`` for the cached image a revalidation starts from.
///
/// Encoded variants (``EncodedVariant``) live in the bytes tier like any stored bytes
/// (their ``EncodedVariant/metadata`` records what makes them a variant) and, for the
/// hits a server answers most, in a memory tier of their own
/// (``variantFromMemory(forKey:)``); a cache without one keeps the defaults, which hold
/// nothing there.
///
/// ``CacheType`` names the tiers in every call: `.memory` is the image tier, `.disk` the
/// bytes tier, whatever the storage behind them. Implementations must be safe to call
/// from any thread; the asynchronous calls must not block the caller's executor.
public protocol ImageCaching: Sendable {
    /// The decoded image held in the fast tier for `key`, if any. Called on the caller's
    /// thread for every load: keep it cheap and non-blocking.
    func imageFromMemory(forKey key: String) -> Image?

    /// Puts `image` in the fast tier under `key`, visible at once to
    /// ``imageFromMemory(forKey:)`` (a cache may decline, e.g. an image over its limits).
    func storeToMemory(_ image: Image, forKey key: String)

    /// Looks `key` up in the tiers `cacheType` names, the image tier first; a bytes hit is
    /// decoded with `decodeOptions` (and, when `cacheType` includes memory, kept in the
    /// image tier under the key that decode belongs to: see
    /// ``ImageCache/query(forKey:cacheType:decodeOptions:)``). Bytes that are not an image
    /// read as a miss.
    func query(forKey key: String, cacheType: CacheType, decodeOptions: ImageDecodeOptions) async -> CacheQueryResult?

    /// The stored bytes and metadata for `key`, undecoded; `nil` when the bytes tier has none.
    func entry(forKey key: String) async -> DiskCacheEntry?

    /// ``entry(forKey:)`` on the calling thread, for ``ImageOptions/queryDiskDataSync``;
    /// a cache that cannot answer without waiting returns `nil` (the manager then asks
    /// ``entry(forKey:)``).
    func entrySync(forKey key: String) -> DiskCacheEntry?

    /// Whether ``entrySync(forKey:)`` always answers, so that its `nil` means the key is
    /// not stored: the manager then reads a source and makes a result from it in one visit
    /// to a coding thread, and does not ask ``entry(forKey:)`` after a miss. The default is
    /// `false`.
    var answersSynchronously: Bool { get }

    /// Stores `data` with `metadata` in the bytes tier under `key` on the calling thread,
    /// for callers already on a thread that may block (the manager's coding threads);
    /// returns `false`, storing nothing, when the cache cannot store without waiting (the
    /// caller then uses ``store(_:data:forKey:metadata:cacheType:)``). The default returns `false`.
    func storeDataSync(_ data: Data, forKey key: String, metadata: CacheMetadata) throws(ImageError) -> Bool

    /// Stores under `key`, in the tiers `cacheType` names: `image` in the image tier, and
    /// in the bytes tier `data` with `metadata` — or, without `data`, `image` encoded by the
    /// cache (in its own format when it can be written, an animation as an animation).
    /// Returns once the bytes are stored.
    func store(_ image: Image?, data: Data?, forKey key: String, metadata: CacheMetadata, cacheType: CacheType) async throws(ImageError)

    /// Removes `key` from the tiers `cacheType` names.
    func remove(forKey key: String, cacheType: CacheType) async

    /// Removes every entry from the tiers `cacheType` names.
    func clear(_ cacheType: CacheType) async

    /// Which tier holds `key`: ``CacheType/memory`` (asked first), ``CacheType/disk`` or
    /// ``CacheType/none``.
    func contains(forKey key: String) async -> CacheType

    /// The encoded variant held in memory for `key`, if any; asked synchronously for every
    /// variant request, so keep it cheap. The default holds none.
    func variantFromMemory(forKey key: String) -> EncodedVariant?

    /// Keeps `variant` in memory under `key` (a cache may decline). The default keeps nothing.
    func storeVariantToMemory(_ variant: EncodedVariant, forKey key: String)

    /// The stored bytes for `key`, if any (by default, ``entry(forKey:)``'s bytes).
    func diskData(forKey key: String) async -> Data?

    /// The metadata stored with `key`'s bytes (validators, stored date), if any (by
    /// default, ``entry(forKey:)``'s metadata).
    func metadata(forKey key: String) async -> CacheMetadata?
}

extension ImageCaching {
    /// None: a cache without a memory tier of variants.
    public func variantFromMemory(forKey key: String) -> EncodedVariant? { nil }

    /// Nothing: a cache without a memory tier of variants.
    public func storeVariantToMemory(_ variant: EncodedVariant, forKey key: String) {}

    /// `false`: a cache whose synchronous reads may not answer.
    public var answersSynchronously: Bool { false }

    /// `false`: a cache that stores only asynchronously.
    public func storeDataSync(_ data: Data, forKey key: String, metadata: CacheMetadata) throws(ImageError) -> Bool { false }

    /// ``query(forKey:cacheType:decodeOptions:)`` in every tier, with default decode options.
    public func query(forKey key: String, cacheType: CacheType = .all) async -> CacheQueryResult? {
        await query(forKey: key, cacheType: cacheType, decodeOptions: ImageDecodeOptions())
    }

    /// ``store(_:data:forKey:metadata:cacheType:)`` with empty metadata, in every tier
    /// unless told otherwise.
    public func store(_ image: Image?, data: Data?, forKey key: String, cacheType: CacheType = .all) async throws(ImageError) {
        try await store(image, data: data, forKey: key, metadata: CacheMetadata(), cacheType: cacheType)
    }

    /// Removes `key` from every tier.
    public func remove(forKey key: String) async {
        await remove(forKey: key, cacheType: .all)
    }

    /// The stored bytes for `key`: ``entry(forKey:)``'s bytes.
    public func diskData(forKey key: String) async -> Data? {
        await entry(forKey: key)?.data
    }

    /// The metadata stored with `key`'s bytes: ``entry(forKey:)``'s metadata.
    public func metadata(forKey key: String) async -> CacheMetadata? {
        await entry(forKey: key)?.metadata
    }
}
