import Foundation
import WebImageLocking

/// The on-disk cache: encoded bytes and their ``CacheMetadata`` under string keys, in
/// `<root>/<namespace>/<md5(key)>.<ext>` (see ``CacheKey/fileName(forKey:)``).
///
/// - Writes are atomic (a temporary file renamed into place) and the async methods run on
///   a background I/O thread pool, never on the caller's thread. A crash at any instant
///   leaves the old entry, the new one, or none.
/// - Every file carries its metadata and a CRC-32C (the format is described in
///   `DiskEntryFormat.swift`); a truncated or garbled file reads as a miss and is removed.
///   A file already verified is not checksummed again while its size and status-change
///   time stay the same (see `VerifiedFiles.swift`).
/// - Entries expire after ``CacheConfig/maxDiskAge`` and the size is kept under
///   ``CacheConfig/maxDiskSize`` (trimming oldest first to half of it), on a timer
///   (``CacheConfig/autoCleanInterval``) and as soon as a write crosses the limit; the
///   running total that notices the crossing starts from a scan made in the background at
///   creation. ``clean()`` does the same on demand.
/// - Access order is kept in each file's access time, which reads set explicitly (at most
///   once a minute per file) when ``CacheConfig/diskExpireType`` is ``CacheConfig/DiskExpireType/accessDate``:
///   Linux cannot set creation dates and `relatime` mounts update access times unreliably.
///   The modification time is the time of the last write.
/// - ``CacheConfig/additionalReadOnlyPaths`` are searched after the main directory, never
///   written or cleaned, and may hold plain image files.
/// - A file of another format version is a miss and stays (another build sharing the
///   directory may read it), unless it is older and ``CacheConfig/diskEntryMigration`` reads
///   it: then it is rewritten in the current format on that read.
///
/// The `…Sync` methods do the same work on the calling thread, for callers that asked for
/// synchronous disk access and for benchmarks.
public final class DiskCache: Sendable {
    /// The configuration the cache was created with.
    public let config: CacheConfig
    /// The directory entries are written to: ``CacheConfig/diskDirectory``.
    public let directory: String

    let sizeState = Locked(SizeState())
    let verifiedFiles = VerifiedFiles()
    private let writeFailures = Locked(WriteFailures())

    private struct WriteFailures {
        var count = 0
        var observers: [@Sendable (CacheWriteFailure) -> Void] = []
    }
    let timer = Locked<Task<Void, Never>?>(nil)

    /// Reads refresh an entry's access time only when it is older than this, so that a hot
    /// entry costs no extra system call (and no inode write) on most reads.
    static let accessTimeResolution: Double = 60

    /// Creates a cache on `config.diskDirectory` (created at the first write). Starts the
    /// background size scan and, when configured, the clean timer.
    public init(config: CacheConfig = CacheConfig()) {
        self.config = config
        self.directory = config.diskDirectory
        startMaintenance()
    }

    deinit {
        timer.withLock { $0?.cancel() }
    }

    /// The path of `key`'s file in the cache's own directory (whether or not it exists).
    public func cachePath(forKey key: String) -> String {
        directory + "/" + CacheKey.fileName(forKey: key)
    }

    // MARK: Writing

    /// Stores `data` with `metadata` under `key`, replacing any entry, on the I/O pool.
    /// ``CacheMetadata/storedDate`` is set to the time of the write.
    public func store(_ data: Data, forKey key: String, metadata: CacheMetadata = CacheMetadata()) async throws(ImageError) {
        try await BlockingPools.run(on: BlockingPools.io) { () throws(ImageError) in
            try self.storeSync(data, forKey: key, metadata: metadata)
        }
    }

    /// ``store(_:forKey:metadata:)`` on the calling thread.
    public func storeSync(_ data: Data, forKey key: String, metadata: CacheMetadata = CacheMetadata()) throws(ImageError) {
        var stamped = metadata
        stamped.storedDate = Date()
        try write(data, metadata: stamped, key: key)
    }

    /// Replaces the metadata of `key`'s entry in the cache's own directory, keeping its
    /// bytes (the file is rewritten atomically). `metadata` is written as given, stored
    /// date included. Returns `false` when there is no such entry.
    @discardableResult
    public func updateMetadata(_ metadata: CacheMetadata, forKey key: String) async throws(ImageError) -> Bool {
        try await BlockingPools.run(on: BlockingPools.io) { () throws(ImageError) -> Bool in
            try self.updateMetadataSync(metadata, forKey: key)
        }
    }

    /// ``updateMetadata(_:forKey:)`` on the calling thread.
    @discardableResult
    public func updateMetadataSync(_ metadata: CacheMetadata, forKey key: String) throws(ImageError) -> Bool {
        guard let entry = readEntry(path: cachePath(forKey: key), key: key, readOnly: false, touch: false, parseMetadata: false) else {
            return false
        }
        try write(entry.data, metadata: metadata, key: key)
        return true
    }

    /// Writes an entry in the current format as it is given, stored date included.
    func write(_ data: Data, metadata: CacheMetadata, key: String) throws(ImageError) {
        let trailer = DiskEntryFormat.trailer(for: data, metadata: metadata, key: key)
        let written: Int
        do throws(ImageError) {
            written = try DiskFiles.writeAtomically(data, trailer: trailer, directory: directory, fileName: CacheKey.fileName(forKey: key))
        } catch {
            let observers = writeFailures.withLock { failures in
                failures.count += 1
                return failures.observers
            }
            let failure = CacheWriteFailure(key: key, directory: directory, error: error)
            for observer in observers { observer(failure) }
            throw error
        }
        noteWritten(bytes: written)
    }

    // MARK: Write failures

    /// Writes that failed since the cache was created.
    public var writeFailureCount: Int { writeFailures.withLock { $0.count } }

    /// Calls `observer` after every failed write, on the thread that wrote (keep it short),
    /// before the write's error reaches its caller. Observers stay for the cache's lifetime.
    public func observeWriteFailures(_ observer: @escaping @Sendable (CacheWriteFailure) -> Void) {
        writeFailures.withLock { $0.observers.append(observer) }
    }

    // MARK: Reading

    /// The bytes stored under `key`, or `nil`; read on the I/O pool.
    public func data(forKey key: String) async -> Data? {
        await BlockingPools.run(on: BlockingPools.io) { self.dataSync(forKey: key) }
    }

    /// ``data(forKey:)`` on the calling thread.
    public func dataSync(forKey key: String) -> Data? {
        lookup(key, parseMetadata: false)?.data
    }

    /// The bytes and metadata stored under `key`, or `nil`; read on the I/O pool.
    public func entry(forKey key: String) async -> DiskCacheEntry? {
        await BlockingPools.run(on: BlockingPools.io) { self.entrySync(forKey: key) }
    }

    /// ``entry(forKey:)`` on the calling thread.
    public func entrySync(forKey key: String) -> DiskCacheEntry? {
        lookup(key, parseMetadata: true)
    }

    /// The metadata stored under `key`, or `nil`. The entry is read whole: the checksum
    /// covers bytes and metadata together.
    public func metadata(forKey key: String) async -> CacheMetadata? {
        await entry(forKey: key)?.metadata
    }

    /// Whether a file exists for `key` (in the cache's directory or a read-only path). The
    /// file is not read, so a damaged entry counts until a read finds it damaged.
    public func contains(forKey key: String) async -> Bool {
        await BlockingPools.run(on: BlockingPools.io) { self.containsSync(forKey: key) } ?? false
    }

    /// ``contains(forKey:)`` on the calling thread.
    public func containsSync(forKey key: String) -> Bool {
        let fileName = CacheKey.fileName(forKey: key)
        if DiskFiles.status(path: directory + "/" + fileName)?.isRegularFile == true { return true }
        return config.additionalReadOnlyPaths.contains { DiskFiles.status(path: $0 + "/" + fileName)?.isRegularFile == true }
    }

    /// The keys of the valid entries in the cache's own directory (read from their files;
    /// damaged files are removed on the way).
    public func keys() async -> [String] {
        await BlockingPools.run(on: BlockingPools.io) { () -> [String]? in
            var names: [String] = []
            DiskFiles.forEachEntry(in: self.directory) { name, status in
                if status.isRegularFile && !DiskFiles.isTemporary(name) { names.append(name) }
            }
            return names.compactMap {
                self.readEntry(path: self.directory + "/" + $0, key: nil, readOnly: false, touch: false, parseMetadata: true)?.key
            }
        } ?? []
    }

    /// Looks in the cache's directory, then in each read-only path.
    private func lookup(_ key: String, parseMetadata: Bool) -> DiskCacheEntry? {
        let fileName = CacheKey.fileName(forKey: key)
        let touch = config.diskExpireType == .accessDate
        if let entry = readEntry(path: directory + "/" + fileName, key: key, readOnly: false, touch: touch, parseMetadata: parseMetadata) {
            return entry
        }
        for path in config.additionalReadOnlyPaths {
            if let entry = readEntry(path: path + "/" + fileName, key: key, readOnly: true, touch: false, parseMetadata: parseMetadata) {
                return entry
            }
        }
        return nil
    }

    /// Reads and checks one file, looked up under `key` (`nil`: found by a listing). A
    /// damaged file in the cache's own directory is removed; in a read-only path it is left
    /// alone, and a file without a trailer is taken whole. A file of another format version
    /// is a miss and stays, unless it is older and the configuration's migration reads it
    /// (`migrated(_:version:path:key:readOnly:)`).
    func readEntry(path: String, key lookedUp: String?, readOnly: Bool, touch: Bool, parseMetadata: Bool) -> DiskCacheEntry? {
        let touchBefore = touch ? Date().timeIntervalSince1970 - Self.accessTimeResolution : nil
        guard let contents = DiskFiles.readFile(path: path, touchAccessBefore: touchBefore) else { return nil }
        let fileDate = Date(timeIntervalSince1970: contents.status.modified)
        let verified = verifiedFiles.contains(contents.status)
        switch DiskEntryFormat.layout(of: contents.bytes, verifyChecksum: !verified) {
        case .entry(let dataLength, let metadataLength):
            var metadata = CacheMetadata(storedDate: fileDate)
            var key: String?
            if parseMetadata {
                let records = UnsafeRawBufferPointer(rebasing: contents.bytes[dataLength..<dataLength + metadataLength])
                guard let parsed = DiskEntryFormat.metadata(from: records) else { break }
                metadata = parsed.metadata
                key = parsed.key
            }
            if !verified { verifiedFiles.insert(contents.status) }
            return DiskCacheEntry(data: contents.takeData(count: dataLength), metadata: metadata, key: key)
        case .noTrailer where readOnly:
            return DiskCacheEntry(data: contents.takeData(count: contents.count), metadata: CacheMetadata(storedDate: fileDate))
        case .otherVersion(let fileVersion):
            if fileVersion < DiskEntryFormat.version, config.diskEntryMigration != nil {
                return migrated(contents, version: fileVersion, path: path, key: lookedUp, readOnly: readOnly)
            }
            // A miss, left for the build that wrote it; the trim still counts its bytes.
            contents.release()
            return nil
        case .noTrailer, .damaged:
            break
        }
        contents.release()
        verifiedFiles.remove(contents.status)
        if !readOnly {
            DiskFiles.removeIfUnchanged(path: path, status: contents.status)
            noteRemoved(bytes: contents.status.size)
        }
        return nil
    }

    // MARK: Removing and measuring

    /// Removes `key`'s entry from the cache's own directory (read-only paths are untouched).
    public func remove(forKey key: String) async {
        _ = await BlockingPools.run(on: BlockingPools.io) { () -> Bool? in
            self.removeSync(forKey: key)
            return true
        }
    }

    /// ``remove(forKey:)`` on the calling thread.
    public func removeSync(forKey key: String) {
        let path = cachePath(forKey: key)
        if let status = DiskFiles.status(path: path), unlink(path) == 0 {
            noteRemoved(bytes: status.size)
        }
    }

    /// Removes every entry from the cache's own directory. Temporary files of writes in
    /// flight are left to finish; ``clean()`` removes abandoned ones.
    public func removeAll() async {
        _ = await BlockingPools.run(on: BlockingPools.io) { () -> Bool? in
            self.removeAllSync()
            return true
        }
    }

    /// ``removeAll()`` on the calling thread.
    public func removeAllSync() {
        DiskFiles.forEachEntry(in: directory) { name, status in
            guard status.isRegularFile, !DiskFiles.isTemporary(name) else { return }
            if unlink(self.directory + "/" + name) == 0 { self.noteRemoved(bytes: status.size) }
        }
    }

    /// The bytes the entries in the cache's own directory take (file sizes).
    public func totalSize() async -> Int {
        await BlockingPools.run(on: BlockingPools.io) { self.totalSizeSync() } ?? 0
    }

    /// ``totalSize()`` on the calling thread.
    public func totalSizeSync() -> Int { measure().bytes }

    /// The number of entries in the cache's own directory.
    public func count() async -> Int {
        await BlockingPools.run(on: BlockingPools.io) { self.countSync() } ?? 0
    }

    /// ``count()`` on the calling thread.
    public func countSync() -> Int { measure().count }

    /// Removes expired entries, then trims the oldest until under half of
    /// ``CacheConfig/maxDiskSize`` when over it, and removes temporary files abandoned by
    /// interrupted writes. Runs on the I/O pool; the cache also runs it on its own.
    @discardableResult
    public func clean() async -> DiskCacheCleanResult {
        await BlockingPools.run(on: BlockingPools.io) { self.cleanSync() }
            ?? DiskCacheCleanResult(expiredCount: 0, trimmedCount: 0, removedBytes: 0, temporaryFilesRemoved: 0, remainingCount: 0, remainingBytes: 0)
    }
}
