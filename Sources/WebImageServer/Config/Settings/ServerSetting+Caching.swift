import Foundation
import WebImage

/// The settings of ``SettingSection/caching``.
extension ServerSetting {
    /// The settings of ``SettingSection/caching``, in the order the help lists them.
    static let cachingSettings: [ServerSetting] = [
        cache, cacheDir, cacheMaxDisk, cacheMaxMemory, cacheMaxAge, freshMaxAge, staleWhileRevalidate, ttl,
    ]

    /// `--cache`: where variants and sources are kept.
    public static let cache = choice(
        "cache", .caching, \.caching.tiers, placeholder: "TIERS",
        imgproxyDefault: .memory,
        help: "where variants and sources are kept: `none`, `memory` (variants), `disk` (variants and sources) or `memory+disk`; "
            + "imgproxy's profile keeps nothing on disk, as imgproxy"
    )

    /// `--cache-dir`: cache root; the proxy uses the namespaces `proxy-originals` and `proxy-variants`.
    public static let cacheDir = text(
        "cacheDir", .caching, \.caching.cacheDirectory, placeholder: "DIR",
        default: "`$XDG_CACHE_HOME/webimage`, else `~/.cache/webimage`",
        help: "cache root; the proxy uses the namespaces `proxy-originals` and `proxy-variants`",
        check: { setting, directory throws(ServerConfigError) in
            guard !directory.isEmpty else { throw setting.error("the cache directory is empty") }
        }
    )

    /// `--cache-max-disk`: disk cache limit, half for originals and half for variants; 0: none.
    public static let cacheMaxDisk = bytes(
        "cacheMaxDisk", .caching, \.caching.cacheMaxDiskSize, bounds: .atLeast(0),
        default: "`2G`",
        help: "disk cache limit, half for originals and half for variants; 0: none"
    )

    /// `--cache-max-memory`: encoded variants kept in memory.
    public static let cacheMaxMemory = bytes(
        "cacheMaxMemory", .caching, \.caching.cacheMaxMemory, bounds: .atLeast(0),
        default: "`256M`",
        help: "encoded variants kept in memory"
    )

    /// `--cache-max-age`: disk entries unused this long are removed.
    public static let cacheMaxAge = ServerSetting(
        "cacheMaxAge", .caching, kind: .custom, placeholder: "S",
        default: "`2592000` (30 days)",
        help: "disk entries unused this long are removed"
    ) { setting, values, config throws(ServerConfigError) in
        config.caching.cacheMaxAge = try Double(SettingText.seconds(values.last ?? "", setting, zeroIsOff: false).components.seconds)
    }

    /// `--fresh-max-age`: the longest a cached source or variant is used before its source is asked again.
    public static let freshMaxAge = seconds(
        "freshMaxAge", .caching, \.caching.freshMaxAge, zeroIsOff: true,
        default: "`0` (as long as the source's `Cache-Control` or `Expires` says)",
        help: "the longest a cached source or variant is used before its source is asked again (with its ETag / Last-Modified: "
            + "a 304 renews it), whatever the source's `Cache-Control` says; 0: as long as the source says"
    )

    /// `--stale-while-revalidate`: how long past its freshness a cached source is served while it is revalidated.
    public static let staleWhileRevalidate = seconds(
        "staleWhileRevalidate", .caching, \.caching.staleWhileRevalidate, zeroIsOff: true,
        default: "`0` (a stale source is revalidated first)",
        help: "how long past its freshness a cached source is still served while it is revalidated in the background "
            + "(the source's own `stale-while-revalidate` takes its place); 0: a stale source is revalidated first"
    )

    /// `--ttl`: `Cache-Control: max-age` of images, shortened to what a URL's `expires` leaves; 0: `no-cache`.
    public static let ttl = integer(
        "ttl", .caching, \.caching.ttl, bounds: .atLeast(0), placeholder: "S",
        imgproxy: [same("IMGPROXY_TTL")],
        default: "`31536000` (1 year)",
        help: "`Cache-Control: max-age` of images, shortened to what a URL's `expires` leaves; 0: `no-cache`"
    )
}
