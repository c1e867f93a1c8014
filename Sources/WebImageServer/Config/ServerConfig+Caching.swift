import Foundation
import WebImage

extension ServerConfig {
    /// The disk and memory caches and the `Cache-Control` of images.
    public struct Caching: Sendable {
        /// `Cache-Control: max-age` of a served image, in seconds. Default one year.
        public var ttl = 31_536_000
        /// Where variants and sources are kept. Default memory and disk; under imgproxy's
        /// profile memory only, as imgproxy keeps nothing on disk.
        public var tiers = CacheTiers.memoryAndDisk
        /// The directory holding the cache (namespaces `proxy-originals` and `proxy-variants`).
        public var cacheDirectory = CacheConfig.defaultRootDirectory
        /// Disk cache limit in bytes, split evenly between originals and variants; 0: no limit. Default 2 GiB.
        public var cacheMaxDiskSize = 2 << 30
        /// Bytes of encoded variants kept in memory. Default 256 MiB.
        public var cacheMaxMemory = 256 << 20
        /// Age after which disk entries are removed, in seconds (by last access). Default 30 days.
        public var cacheMaxAge: TimeInterval = 30 * 24 * 3600
        /// The longest a cached source or variant is used before its source is asked again,
        /// whatever the source's `Cache-Control` says; zero: as long as the source says.
        public var freshMaxAge: Duration = .zero
        /// How long past its freshness a cached source is still served while it is
        /// revalidated in the background (a source's own `stale-while-revalidate` takes
        /// its place); zero: a stale source is revalidated first.
        public var staleWhileRevalidate: Duration = .zero

        /// The defaults.
        public init() {}
    }
}

extension ServerConfig.Caching {
    /// The settings of one half of the cache: `namespace` under ``cacheDirectory``, half of
    /// ``cacheMaxDiskSize``, entries removed after ``cacheMaxAge`` and fresh as the source
    /// says within ``freshMaxAge`` and ``staleWhileRevalidate``. Originals and variants
    /// each get one, with no decoded images in memory: encoded variants are what is served
    /// from memory.
    public func cacheConfig(namespace: String) -> CacheConfig {
        var cache = CacheConfig()
        cache.rootDirectory = cacheDirectory
        cache.namespace = namespace
        cache.maxDiskSize = cacheMaxDiskSize / 2
        cache.maxDiskAge = cacheMaxAge
        cache.shouldCacheImagesInMemory = false
        cache.freshness = CacheFreshness(
            maxAge: freshMaxAge > .zero ? freshMaxAge : nil, staleWhileRevalidate: staleWhileRevalidate > .zero ? staleWhileRevalidate : nil
        )
        return cache
    }
}

extension ServerConfig.Caching {
    /// The start-up log line saying where made images are kept.
    public var startupLine: String {
        switch tiers {
        case .memoryAndDisk: "cache: variants in memory and on disk, sources on disk, under \(cacheDirectory)"
        case .disk: "cache: variants and sources on disk under \(cacheDirectory), nothing in memory"
        case .memory: "cache: variants in memory only, nothing on disk (--cache memory+disk keeps them under \(cacheDirectory) too)"
        case .none: "cache: none, every request is made anew (--cache memory keeps variants in memory)"
        }
    }
}
