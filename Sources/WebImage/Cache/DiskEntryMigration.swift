import Foundation

/// How a ``DiskCache`` reads an entry file written in an older format version than this
/// build writes (``currentVersion``), set on ``CacheConfig/diskEntryMigration``.
///
/// Without one, such a file is a miss and stays where it is, as a file of a newer version
/// always does: another build sharing the directory may read it. With one, an older file
/// found by a read is handed to the migration with its version and its bytes; what the
/// migration returns is the entry, and it is written back in the current format under the
/// same key (in the cache's own directory; a read-only path is never written), so that the
/// file is migrated once. `nil` leaves the file a miss, and in place. The size limit counts
/// every file, migrated or not.
///
///     var config = CacheConfig()
///     config.diskEntryMigration = DiskEntryMigration { old in
///         guard old.version == 0 else { return nil }
///         // Version 0 held the image bytes and a 12-byte footer of its own.
///         return DiskCacheEntry(data: old.file.dropLast(12), metadata: CacheMetadata())
///     }
///
/// Two migrations are equal when one is a copy of the other.
public struct DiskEntryMigration: Sendable, Hashable {
    /// An entry file of an older format version, as read.
    public struct OldEntry: Sendable {
        /// The format version its footer records, lower than ``DiskEntryMigration/currentVersion``.
        public let version: Int
        /// Every byte of the file, its old trailer included.
        public let file: Data
        /// The key it was looked up under; `nil` when the cache lists its entries
        /// (``DiskCache/keys()``, ``DiskCache/storedEntries()``): the migration then names
        /// the key in the entry it returns (``DiskCacheEntry/key``), or the file is skipped.
        public let key: String?

        /// Creates an old entry (for testing a migration).
        public init(version: Int, file: Data, key: String?) {
            self.version = version
            self.file = file
            self.key = key
        }
    }

    /// The format version this build writes.
    public static var currentVersion: Int { Int(DiskEntryFormat.version) }

    private final class Box: Sendable {
        let migrate: @Sendable (OldEntry) -> DiskCacheEntry?
        init(_ migrate: @escaping @Sendable (OldEntry) -> DiskCacheEntry?) { self.migrate = migrate }
    }

    private let box: Box

    /// Creates a migration: `migrate` returns the bytes and metadata an older file holds
    /// (and, when the entry has no key yet, its key), or `nil` when it cannot read it. It
    /// runs on the thread that reads the cache; keep it to parsing bytes.
    public init(_ migrate: @escaping @Sendable (OldEntry) -> DiskCacheEntry?) {
        box = Box(migrate)
    }

    /// The entry `old` holds, or `nil`.
    public func migrate(_ old: OldEntry) -> DiskCacheEntry? {
        box.migrate(old)
    }

    /// Whether `lhs` is a copy of `rhs`.
    public static func == (lhs: DiskEntryMigration, rhs: DiskEntryMigration) -> Bool {
        lhs.box === rhs.box
    }

    /// Hashes the migration's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(box))
    }
}
