import Foundation

/// How an ``ImageCache`` (and its ``MemoryCache`` and ``DiskCache``) behaves — the analogue
/// of SDWebImage's `SDImageCacheConfig`, with the defaults a long-running server needs.
public struct CacheConfig: Sendable, Hashable {
    /// Which date of a disk entry its age (for ``maxDiskAge``) and its rank in a size trim
    /// are measured from.
    public enum DiskExpireType: Sendable, Hashable {
        /// The last time the entry was read or written. Reads refresh it (at most once a
        /// minute per entry), so the size trim removes the least recently used entries first.
        case accessDate
        /// The last time the entry was written; reads do not count.
        case modificationDate
    }

    /// How long a disk entry lives, in seconds, measured by ``diskExpireType``. Negative:
    /// entries never expire. Default: one week, as in SDWebImage.
    public var maxDiskAge: TimeInterval = 7 * 24 * 60 * 60
    /// The disk cache's size limit in bytes. When the entries grow past it, the oldest are
    /// removed until the total is under half of it. 0 means no limit (the default, as in SDWebImage).
    public var maxDiskSize: Int = 0
    /// The memory cache's limit, in bytes of decoded pixels (see ``Image/memoryCost``);
    /// 0 means no limit. Default: ``defaultMaxMemoryCost``.
    public var maxMemoryCost: Int = CacheConfig.defaultMaxMemoryCost
    /// The memory cache's limit on the number of images; 0 means no limit (the default:
    /// the cost limit already bounds memory).
    public var maxMemoryCount: Int = 0
    /// An image whose cost is over this fraction of ``maxMemoryCost`` is not kept in
    /// memory. Default 0.1, Nuke's choice: one huge image cannot flush the whole cache, and
    /// at the default limits images up to ~100 MB of pixels (5000 × 5000 RGBA) still fit.
    public var maxMemoryCostFractionPerEntry: Double = 0.1
    /// Which date ages disk entries. Default ``DiskExpireType/accessDate`` (SDWebImage defaults
    /// to the modification date): on a server the images read most should be the last to go.
    public var diskExpireType: DiskExpireType = .accessDate
    /// The sub-directory of ``rootDirectory`` this cache uses, so that several caches can
    /// share a root. Default `"default"`.
    public var namespace: String = "default"
    /// The directory holding every namespace. Default `$XDG_CACHE_HOME/webimage`, else
    /// `~/.cache/webimage`.
    public var rootDirectory: String = CacheConfig.defaultRootDirectory
    /// Directories searched, in order, after the cache's own directory for a file named
    /// ``CacheKey/fileName(forKey:)``. They are never written or cleaned; plain image files
    /// (without WebImage's trailer) are accepted there.
    public var additionalReadOnlyPaths: [String] = []
    /// How often the disk cache removes expired entries and trims its size on its own;
    /// `nil` disables the timer (writes that cross ``maxDiskSize`` still trigger a trim).
    /// Default: one hour.
    public var autoCleanInterval: Duration? = .seconds(3600)
    /// Whether opening a disk cache that is already over ``maxDiskSize`` trims it in the
    /// background. Default `true`. A tool that only inspects a cache, or cleans it itself
    /// and reports what it removed, turns this off.
    public var trimsWhenOpened: Bool = true
    /// How long the disk cache waits before it tries again to trim itself after a trim
    /// that could remove nothing (a read-only directory, no permission to delete): the wait
    /// doubles after each such trim, up to 5 minutes, and a trim that removes something
    /// starts it over. Default 1 s.
    public var trimRetryDelay: Duration = .seconds(1)
    /// Whether decoded images are kept in memory at all. Default `true`.
    public var shouldCacheImagesInMemory: Bool = true
    /// The limit of the memory tier of encoded variants (``EncodedVariant``), in bytes of
    /// encoded data; 0 means no limit. A variant over a quarter of it is not kept in
    /// memory. Default 64 MB: encoded images are small next to decoded ones.
    public var maxVariantMemoryCost: Int = 64 << 20
    /// How long entries are used without asking their source again (``CacheFreshness``):
    /// by default as long as the source says, and without an end when it says nothing. A
    /// request's ``ImageRequest/Caching/freshness`` takes its place.
    public var freshness: CacheFreshness = .default
    /// How the disk cache reads entry files of an older format version (written by an
    /// older build); `nil` (the default): they are misses, left in place. Files of a newer
    /// version are always left alone. See ``DiskEntryMigration``.
    public var diskEntryMigration: DiskEntryMigration?

    /// Creates a configuration with the defaults.
    public init() {}

    /// The directory entries are written to: ``rootDirectory``/``namespace``.
    public var diskDirectory: String {
        (rootDirectory.hasSuffix("/") ? rootDirectory : rootDirectory + "/") + namespace
    }

    /// The default ``rootDirectory``: `$XDG_CACHE_HOME/webimage` when that variable holds an
    /// absolute path (as the XDG spec requires), else `~/.cache/webimage`.
    public static var defaultRootDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return xdg + "/webimage"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.cache/webimage"
    }

    /// The default ``maxMemoryCost``: a quarter of the memory this process may use, capped
    /// at 1 GiB. A quarter leaves room for decoding, encoding and transfers, which also hold
    /// pixels; the cap keeps a big host from turning the cache into a memory hog that a
    /// second instance on the same host would fight. "May use" is the smaller of the
    /// physical memory and the cgroup limit, because in a container the physical figure is
    /// the host's and the kernel kills the process long before it is reached.
    public static let defaultMaxMemoryCost: Int = {
        let physical = Int(clamping: ProcessInfo.processInfo.physicalMemory)
        let available = min(physical, cgroupMemoryLimit() ?? .max)
        return min(available / 4, 1 << 30)
    }()

    /// The cgroup (v2, else v1) memory limit of this process, if one is set.
    private static func cgroupMemoryLimit() -> Int? {
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            // "max" (v2) or a huge number (v1) means no limit.
            if let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0, value < 1 << 60 {
                return value
            }
        }
        return nil
    }
}
