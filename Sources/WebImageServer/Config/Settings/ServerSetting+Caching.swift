import Foundation
import WebImage

/// The settings of ``SettingSection/caching``.
extension ServerSetting {
    /// The settings of ``SettingSection/caching``, in the order the help lists them.
    static let cachingSettings: [ServerSetting] = [
        cache, cacheDir, cacheMaxDisk, cacheMaxMemory, cacheMaxAge, ttl,
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

    /// `--ttl`: `Cache-Control: max-age` of images, shortened to what a URL's `expires` leaves; 0: `no-cache`.
    public static let ttl = integer(
        "ttl", .caching, \.caching.ttl, bounds: .atLeast(0), placeholder: "S",
        imgproxy: [same("IMGPROXY_TTL")],
        default: "`31536000` (1 year)",
        help: "`Cache-Control: max-age` of images, shortened to what a URL's `expires` leaves; 0: `no-cache`"
    )
}
