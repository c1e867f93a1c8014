import Foundation

/// Reading entry files of an older format version through the configuration's
/// ``CacheConfig/diskEntryMigration``.
extension DiskCache {
    /// The entry the migration reads from an older file (`contents`, whose buffer this
    /// takes), written back in the current format when the file is in the cache's own
    /// directory and still the one read. `nil` leaves the file as it is: the migration
    /// cannot read it, or no key names it (a listing, and a migration that names none or
    /// one whose file is another).
    func migrated(_ contents: DiskFiles.Contents, version: UInt16, path: String, key lookedUp: String?, readOnly: Bool) -> DiskCacheEntry? {
        guard let migration = config.diskEntryMigration else {
            contents.release()
            return nil
        }
        let status = contents.status
        let file = contents.takeData(count: contents.count)
        guard let entry = migration.migrate(DiskEntryMigration.OldEntry(version: Int(version), file: file, key: lookedUp)),
              let key = lookedUp ?? entry.key,
              lookedUp != nil || CacheKey.fileName(forKey: key) == (path as NSString).lastPathComponent
        else { return nil }
        // Another write may have replaced the file since it was read: that one stays.
        if !readOnly, DiskFiles.isSameFile(path: path, status: status),
           (try? write(entry.data, metadata: entry.metadata, key: key)) != nil {
            noteRemoved(bytes: status.size)
        }
        return DiskCacheEntry(data: entry.data, metadata: entry.metadata, key: key)
    }
}
