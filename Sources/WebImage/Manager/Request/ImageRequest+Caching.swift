import Foundation

extension ImageRequest {
    /// Where an ``ImageRequest``'s result is looked up and kept, and under which key.
    public struct Caching: Sendable {
        /// The cache of the result; `nil`: the manager's ``ImageManager/cache``.
        public var cache: (any ImageCaching)?
        /// The tiers the result is looked up in. Default all.
        public var query: CacheType
        /// The tiers the result is kept in. Default all.
        public var store: CacheType
        /// Maps a URL to the key its source is cached under (e.g. dropping a signature that
        /// changes); a `nil` key means not to cache it at all. `nil`: the manager's default
        /// (``ImageManager/defaultContext``), else the URL's string.
        public var keyFilter: (@Sendable (URL) -> String?)?
        /// ``ImageOutput/image`` and ``ImageOutput/data``: chooses the bytes written to
        /// disk for a loaded image (`nil` result: the downloaded bytes, or the image
        /// encoded anew for a processed one).
        public var serializer: (@Sendable (_ image: Image?, _ data: Data?, _ url: URL) -> Data?)?
        /// For a result that is not the source itself (processed, or encoded): where the
        /// source is looked up, so that the result is made from it without a load, and
        /// where a loaded source is kept for other results of it. `nil`: the defaults of
        /// ``ImageRequest/OriginalCaching``.
        public var originals: OriginalCaching?
        /// How long cached entries (the result, and the source it is made from) are used
        /// without asking the source again; `nil`: the rule of the cache they are in
        /// (``ImageCaching/freshness``). ``CacheFreshness/always`` revalidates them on this
        /// load, ``CacheFreshness/untilEvicted`` never.
        public var freshness: CacheFreshness?
        /// With ``ImageRequest/alternativeSources``: whether a result loaded from an
        /// alternative is cached under that alternative's key (its URL through
        /// ``keyFilter``, or a custom source's key) instead of the key of the request's
        /// ``ImageRequest/source``, and each alternative's key is looked up before it is
        /// loaded (with ``ImageRequest/Options/fromCacheOnly`` too, which loads none).
        /// Default `false`: every result is cached under the primary source's key,
        /// so the next load of the primary finds what its alternative answered. Set it when
        /// the alternatives are different images (a placeholder, a smaller rendition) that
        /// must not stand for the primary in the cache.
        public var cachesUnderAnsweringSource: Bool

        /// Creates cache settings; by default every tier of the manager's cache, for the
        /// result and for its source.
        public init(
            cache: (any ImageCaching)? = nil,
            query: CacheType = .all,
            store: CacheType = .all,
            keyFilter: (@Sendable (URL) -> String?)? = nil,
            serializer: (@Sendable (_ image: Image?, _ data: Data?, _ url: URL) -> Data?)? = nil,
            originals: OriginalCaching? = nil,
            freshness: CacheFreshness? = nil,
            cachesUnderAnsweringSource: Bool = false
        ) {
            self.cache = cache
            self.query = query
            self.store = store
            self.keyFilter = keyFilter
            self.serializer = serializer
            self.originals = originals
            self.freshness = freshness
            self.cachesUnderAnsweringSource = cachesUnderAnsweringSource
        }
    }

    /// Where the source of a processed or encoded result is looked up and kept
    /// (SDWebImage's original cache and original query / store cache types).
    public struct OriginalCaching: Sendable {
        /// The cache of sources; `nil`: the result's cache.
        public var cache: (any ImageCaching)?
        /// The tiers the source is looked up in: its bytes on disk (default), and the
        /// decoded source at full size in memory (used only when no thumbnail size is asked for).
        public var query: CacheType
        /// The tiers a loaded source is kept in: its bytes as loaded on disk (default, with
        /// their HTTP validators), and in memory the decoded source when it was decoded at
        /// full size. Within what the manager's ``ImageManager/cachePolicy`` keeps.
        public var store: CacheType

        /// Creates source cache settings: the result's cache, bytes on disk.
        public init(cache: (any ImageCaching)? = nil, query: CacheType = .disk, store: CacheType = .disk) {
            self.cache = cache
            self.query = query
            self.store = store
        }
    }
}
