import Foundation

/// Listing the entries of the cache's own directory (read-only paths are not listed):
/// what `webimage cache info` and `webimage refresh` need.
extension DiskCache {
    /// The entry files, from one directory scan: sizes and dates, nothing read. Temporary
    /// files of writes in flight are left out; a damaged file is listed until a read finds
    /// it damaged. Runs on the I/O pool.
    public func entries() async -> [DiskCacheFileInfo] {
        await BlockingPools.run(on: BlockingPools.io) { self.entriesSync() } ?? []
    }

    /// ``entries()`` on the calling thread.
    public func entriesSync() -> [DiskCacheFileInfo] {
        var files: [DiskCacheFileInfo] = []
        DiskFiles.forEachEntry(in: directory) { name, status in
            guard status.isRegularFile, !DiskFiles.isTemporary(name) else { return }
            files.append(DiskCacheFileInfo(
                path: directory + "/" + name,
                size: status.size,
                modificationDate: Date(timeIntervalSince1970: status.modified),
                // A write sets both times; a copy that kept an old access time is as new as its write.
                accessDate: Date(timeIntervalSince1970: max(status.accessed, status.modified))
            ))
        }
        return files
    }

    /// Every valid entry with its key and metadata, each file read and checked once
    /// (damaged files are removed on the way, as a read would). Access times are left
    /// alone: listing is not using. Runs on the I/O pool.
    public func storedEntries() async -> [DiskCacheStoredEntry] {
        await BlockingPools.run(on: BlockingPools.io) { self.storedEntriesSync() } ?? []
    }

    /// ``storedEntries()`` on the calling thread.
    public func storedEntriesSync() -> [DiskCacheStoredEntry] {
        entriesSync().compactMap { file in
            guard let entry = readEntry(path: file.path, key: nil, readOnly: false, touch: false, parseMetadata: true),
                  let key = entry.key
            else { return nil }
            return DiskCacheStoredEntry(path: file.path, key: key, metadata: entry.metadata, dataSize: entry.data.count)
        }
    }
}
