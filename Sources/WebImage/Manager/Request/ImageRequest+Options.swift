extension ImageRequest {
    /// How an ``ImageRequest`` runs: the flags of SDWebImage's options that mean something
    /// to the pipeline, each with the bit of the ``ImageOptions`` flag of the same name. The others are fields of the request (its ``ImageRequest/priority``,
    /// ``ImageProcessing``, ``ImageOutput`` and ``ImageRequest/Caching``) or belong to image
    /// targets.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The options' bits.
        public let rawValue: Int

        /// Creates options from their raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Load even when the URL is blocked by an earlier permanent failure; success unblocks it.
        public static let retryFailed = Options(rawValue: 1 << 0)
        /// ``ImageOutput/image`` only: deliver partial images while downloading
        /// (`isFinal == false`, never cached).
        public static let progressiveLoad = Options(rawValue: 1 << 3)
        /// Revalidate with the source's stored HTTP validators; a changed source replaces
        /// the cached result. ``ImageOutput/image`` and ``ImageOutput/data`` deliver the
        /// cached result at once, then the final one; an encoded output is the cached one
        /// while the source is unchanged, else made anew from the new source.
        public static let refreshCached = Options(rawValue: 1 << 4)
        /// Finish (and cache) the work even when every caller waiting for it has left, and
        /// let it run through a graceful ``ImageManager/shutdown(gracePeriod:)``.
        public static let continueInBackground = Options(rawValue: 1 << 5)
        /// Send and store cookies for the source's host.
        public static let handleCookies = Options(rawValue: 1 << 6)
        /// Accept invalid (e.g. self-signed) TLS certificates from the source.
        public static let allowInvalidSSLCertificates = Options(rawValue: 1 << 7)
        /// Never load the source: a result neither cached nor makeable from a cached
        /// source fails with ``ImageError/notInCache(_:)``.
        public static let fromCacheOnly = Options(rawValue: 1 << 12)
        /// Complete only once the disk cache holds what the request stores.
        public static let waitStoreCache = Options(rawValue: 1 << 16)
        /// ``ImageOutput/image`` only: on a memory hit, also read the bytes from disk.
        public static let queryMemoryData = Options(rawValue: 1 << 9)
        /// With ``queryMemoryData``: read those bytes before returning from the memory hit.
        public static let queryMemoryDataSync = Options(rawValue: 1 << 10)
        /// Read the disk cache on the calling thread, so that a disk hit completes before
        /// the call returns (small caches, tests).
        public static let queryDiskDataSync = Options(rawValue: 1 << 11)

        /// Each flag with its name, for messages.
        static let names: [(Options, String)] = [
            (.retryFailed, "retryFailed"), (.progressiveLoad, "progressiveLoad"), (.refreshCached, "refreshCached"),
            (.continueInBackground, "continueInBackground"), (.handleCookies, "handleCookies"),
            (.allowInvalidSSLCertificates, "allowInvalidSSLCertificates"), (.fromCacheOnly, "fromCacheOnly"),
            (.waitStoreCache, "waitStoreCache"), (.queryMemoryData, "queryMemoryData"),
            (.queryMemoryDataSync, "queryMemoryDataSync"), (.queryDiskDataSync, "queryDiskDataSync"),
        ]
    }
}
