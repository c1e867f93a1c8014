/// What the manager keeps in each cache tier when it makes encoded variants (Nuke's
/// `DataCachePolicy` is the model): the source's original bytes, so that other variants
/// of it need no download, and the variants themselves.
public struct ImageCachePolicy: Sendable, Hashable {
    /// Where a downloaded source is kept for later variants: ``CacheType/disk`` keeps its
    /// bytes as downloaded (with their validators); ``CacheType/memory`` is ignored (a
    /// decoded original is not what a variant is made from: it is decoded no larger than
    /// each variant needs). Default ``CacheType/disk``.
    public var originals: CacheType
    /// Where variants are kept: their bytes in memory (``ImageCaching/storeVariantToMemory(_:forKey:)``)
    /// and on disk. Default ``CacheType/all``.
    public var encodedVariants: CacheType

    /// Creates a policy.
    public init(originals: CacheType = .disk, encodedVariants: CacheType = .all) {
        self.originals = originals
        self.encodedVariants = encodedVariants
    }

    /// Originals on disk, variants in memory and on disk.
    public static let `default` = ImageCachePolicy()
}
