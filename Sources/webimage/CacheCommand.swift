import ArgumentParser
import Foundation
import WebImage

/// `webimage cache info|clean|clear|path`.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and maintain the disk cache.",
        subcommands: [
            CacheInfoCommand.self,
            CacheCleanCommand.self,
            CacheClearCommand.self,
            CachePathCommand.self,
        ]
    )
}

/// `--max-age` and `--max-size`, the limits `cache info` reports and `cache clean` applies,
/// with the cache's location.
struct CacheLimitOptions: ParsableArguments {
    @Option(
        name: .customLong("max-age"),
        help: ArgumentHelp("Entries not used for this long expire (default 7d, the library's default).", valueName: "duration"),
        transform: Arguments.duration
    )
    var maxAge: TimeInterval?

    @Option(
        name: .customLong("max-size"),
        help: ArgumentHelp("Above this total the oldest entries are removed until under half of it (default: no limit).", valueName: "bytes"),
        transform: Arguments.byteSize
    )
    var maxSize: Int?

    @OptionGroup var location: CacheLocationOptions

    /// The cache configuration at `--cache-dir`, with these limits where given.
    func cacheConfig() -> CacheConfig {
        var config = location.cacheConfig()
        if let maxAge { config.maxDiskAge = maxAge }
        if let maxSize { config.maxDiskSize = maxSize }
        return config
    }
}

/// `webimage cache info`.
struct CacheInfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the cache's directory, size, entry count, oldest and newest entry, and limits.",
        discussion: """
            Dates are the entries' last use (read or write). With --json, one JSON object \
            with the keys directory, count, bytes, oldest, newest (ISO 8601, absent when \
            empty), maxAgeSeconds (negative: never expire) and maxSizeBytes (0: no limit).
            """
    )

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @OptionGroup var cache: CacheLimitOptions

    func run() async throws {
        let config = cache.cacheConfig()
        let disk = DiskCache(config: config)
        let entries = await disk.entries()
        let dates = entries.map(\.accessDate)
        let record = CacheInfoRecord(
            directory: disk.directory, count: entries.count, bytes: entries.reduce(0) { $0 + $1.size },
            oldest: dates.min(), newest: dates.max(), maxAgeSeconds: config.maxDiskAge, maxSizeBytes: config.maxDiskSize
        )
        if json {
            Console.out(JSONLines.line(record))
            return
        }
        Console.out("directory: \(record.directory)")
        Console.out("entries: \(record.count)")
        Console.out("size: \(record.bytes) bytes (\(Formatting.bytes(record.bytes)))")
        let now = Date()
        if let oldest = record.oldest, let newest = record.newest {
            Console.out("oldest: \(Formatting.date(oldest)) (\(Formatting.age(now.timeIntervalSince(oldest))) ago)")
            Console.out("newest: \(Formatting.date(newest)) (\(Formatting.age(now.timeIntervalSince(newest))) ago)")
        }
        Console.out("max age: " + (config.maxDiskAge < 0 ? "none" : Formatting.age(config.maxDiskAge)))
        Console.out("max size: " + (config.maxDiskSize > 0 ? Formatting.bytes(config.maxDiskSize) : "none"))
    }
}

/// What `cache info --json` prints.
struct CacheInfoRecord: Encodable {
    var directory: String
    var count: Int
    var bytes: Int
    var oldest: Date?
    var newest: Date?
    var maxAgeSeconds: Double
    var maxSizeBytes: Int
}

/// `webimage cache clean`.
struct CacheCleanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Remove expired entries and trim the cache to its size limit.",
        discussion: """
            Removes entries older than --max-age, then, when the total is over --max-size, \
            the least recently used until it is under half of it, and temporary files left \
            by interrupted writes. With --json, one JSON object with the keys expired, \
            trimmed, removedBytes, remainingCount, remainingBytes.
            """
    )

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @OptionGroup var cache: CacheLimitOptions

    func run() async throws {
        let result = await DiskCache(config: cache.cacheConfig()).clean()
        if json {
            Console.out(JSONLines.line(CacheCleanRecord(
                expired: result.expiredCount, trimmed: result.trimmedCount, removedBytes: result.removedBytes,
                remainingCount: result.remainingCount, remainingBytes: result.remainingBytes
            )))
        } else {
            Console.out(
                "removed \(result.expiredCount) expired and \(result.trimmedCount) trimmed entries (\(Formatting.bytes(result.removedBytes))); "
                    + "\(result.remainingCount) entries (\(Formatting.bytes(result.remainingBytes))) remain"
            )
        }
    }
}

/// What `cache clean --json` prints.
struct CacheCleanRecord: Encodable {
    var expired: Int
    var trimmed: Int
    var removedBytes: Int
    var remainingCount: Int
    var remainingBytes: Int
}

/// `webimage cache clear`.
struct CacheClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Remove every entry from the cache.",
        discussion: "With --json, one JSON object with the keys removedCount and removedBytes."
    )

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @OptionGroup var cache: CacheLocationOptions

    func run() async throws {
        let disk = DiskCache(config: cache.cacheConfig())
        let before = await disk.entries()
        await disk.removeAll()
        let remaining = await disk.entries()
        let removed = before.count - remaining.count
        let bytes = before.reduce(0) { $0 + $1.size } - remaining.reduce(0) { $0 + $1.size }
        if json {
            Console.out(JSONLines.line(["removedCount": removed, "removedBytes": bytes]))
        } else {
            Console.out("removed \(removed) entries (\(Formatting.bytes(bytes))) from \(disk.directory)")
        }
    }
}

/// `webimage cache path`.
struct CachePathCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "Print the directory the cache's entries are in."
    )

    @OptionGroup var cache: CacheLocationOptions

    func run() {
        Console.out(cache.cacheConfig().diskDirectory)
    }
}
