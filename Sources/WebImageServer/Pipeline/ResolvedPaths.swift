import WebImage

/// What proxy paths already asked for resolved to, so that a path asked for again (every
/// cache hit is one) is not parsed, signature-checked and policy-checked again: that work
/// cost more than the rest of a memory hit in the proxy's own code.
///
/// A path's resolution depends only on the path and the server's fixed configuration
/// (keys, presets, limits, allowed sources), except for `expires`, which depends on the
/// time: paths with `expires` are never remembered. Failures are never remembered either.
/// Entries cost about their bytes; the least recently used go first.
struct ResolvedPaths: Sendable {
    /// One path's resolution, for every format `Accept` can make it ask for.
    struct Entry: Sendable {
        /// The parsed URL.
        var request: ProxyRequest
        /// The variant asked for, and its cache key, by format choice.
        var variants: [FormatNegotiation.Choice: ProxyPipeline.Variant]
        /// The response's `Content-Disposition`.
        var disposition: ContentDisposition
        /// What the path answers with.
        var kind: ProxyResponseKind
    }

    /// Bytes an entry is counted for besides its path and key (the parsed request).
    static let entryOverhead = 512

    private let entries: MemoryCache<String, Entry>

    /// A store holding about `byteLimit` bytes of entries.
    init(byteLimit: Int = 8 << 20) {
        entries = MemoryCache(totalCostLimit: max(1, byteLimit), countLimit: 0, entryCostFraction: 0.05)
    }

    /// The resolution remembered for `path`, if any.
    func entry(forPath path: String) -> Entry? {
        entries.value(forKey: path)
    }

    /// Remembers `entry` for `path` unless its request carries `expires`.
    func remember(_ entry: Entry, forPath path: String) {
        guard entry.request.options.expires == nil else { return }
        // The path is held twice (key and source URL), the variant keys once each.
        let keys = entry.variants.values.reduce(0) { $0 + ($1.key?.utf8.count ?? 0) }
        let cost = 2 * path.utf8.count + keys + Self.entryOverhead * entry.variants.count
        entries.setValue(entry, forKey: path, cost: cost)
    }
}
