import Foundation

/// Expiry, the size limit, and the running total that tells when a write crossed it.
extension DiskCache {
    /// The approximate size of the directory, kept between scans.
    struct SizeState {
        /// Bytes in the directory as of the last scan, plus writes since, minus removals.
        /// Overwrites count twice until the next scan, so it errs towards trimming early;
        /// a trim rescans the directory and starts again from the truth.
        var trackedBytes = 0
        /// Every byte ever written, to tell how much was written while a scan ran.
        var bytesWrittenEver = 0
        /// Whether an automatic clean is running (at most one at a time).
        var automaticCleanRunning = false
        /// Removals that failed, in every clean so far.
        var failedRemovals = 0
        /// The wait before the automatic clean tries again, while its cleans remove
        /// nothing; `nil` while they do.
        var retryDelay: Duration?
    }

    /// The longest wait between automatic cleans that remove nothing.
    static let maxTrimRetryDelay: Duration = .seconds(300)

    /// Entries a clean could not remove (expired or to be trimmed), in every clean since
    /// the cache was created: a read-only directory or one the process may not delete in.
    public var failedRemovalCount: Int { sizeState.withLock { $0.failedRemovals } }

    /// How long the automatic clean waits before its next try while its cleans remove
    /// nothing (see ``CacheConfig/trimRetryDelay``); `nil` when it is not waiting so.
    public var trimRetryDelay: Duration? { sizeState.withLock { $0.retryDelay } }

    /// Temporary files younger than this may belong to a write in flight (of this process
    /// or another sharing the directory); older ones were abandoned by a crash.
    static let temporaryFileGracePeriod: Double = 60

    /// Starts the initial size scan and the clean timer.
    func startMaintenance() {
        // The scan measures; it trims when the directory is already over the limit (unless
        // the configuration says not to).
        Task.detached(priority: .utility) { [weak self] in
            guard let self else { return }
            let scanned = await BlockingPools.run(on: BlockingPools.io) { () -> (bytes: Int, written: Int)? in
                let before = self.sizeState.withLock { $0.bytesWrittenEver }
                return (self.measure().bytes, before)
            }
            guard let scanned else { return }
            let over = self.sizeState.withLock { state in
                state.trackedBytes = scanned.bytes + (state.bytesWrittenEver - scanned.written)
                return self.config.trimsWhenOpened && self.config.maxDiskSize > 0
                    && state.trackedBytes > self.config.maxDiskSize && !state.automaticCleanRunning
            }
            if over { self.startAutomaticClean() }
        }
        guard let interval = config.autoCleanInterval, interval > .zero else { return }
        let task = Task.detached(priority: .background) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                // Holds the cache only while cleaning, so that the timer never keeps it alive.
                guard !Task.isCancelled, let self else { return }
                await self.clean()
            }
        }
        timer.withLock { $0 = task }
    }

    /// Counts a write and starts a clean when it takes the total over the limit.
    func noteWritten(bytes: Int) {
        let limit = config.maxDiskSize
        let start = sizeState.withLock { state in
            state.trackedBytes += bytes
            state.bytesWrittenEver += bytes
            guard limit > 0, state.trackedBytes > limit, !state.automaticCleanRunning else { return false }
            state.automaticCleanRunning = true
            return true
        }
        if start { runAutomaticClean() }
    }

    /// Counts a removal.
    func noteRemoved(bytes: Int) {
        sizeState.withLock { $0.trackedBytes = max(0, $0.trackedBytes - bytes) }
    }

    private func startAutomaticClean() {
        let start = sizeState.withLock { state in
            guard !state.automaticCleanRunning else { return false }
            state.automaticCleanRunning = true
            return true
        }
        if start { runAutomaticClean() }
    }

    /// Cleans in the background until the total is within the limit: writes that land
    /// while a clean runs can take it over again, and no later write may come to notice.
    /// A clean that could remove nothing it tried to is tried again only after a wait that
    /// doubles each time (``CacheConfig/trimRetryDelay``), so that a directory that
    /// refuses deletions costs a retry now and then, not a core.
    private func runAutomaticClean() {
        Task.detached(priority: .utility) {
            while true {
                let result = await self.clean()
                let stuck = result.failedRemovals > 0 && result.expiredCount + result.trimmedCount == 0
                let (again, wait) = self.sizeState.withLock { state -> (Bool, Duration?) in
                    let over = state.trackedBytes > self.config.maxDiskSize
                    if stuck {
                        let next = state.retryDelay.map { min($0 * 2, Self.maxTrimRetryDelay) } ?? self.config.trimRetryDelay
                        state.retryDelay = next
                    } else {
                        state.retryDelay = nil
                    }
                    if !over { state.automaticCleanRunning = false }
                    return (over, over ? state.retryDelay : nil)
                }
                if !again { return }
                if let wait { try? await Task.sleep(for: wait) }
            }
        }
    }

    /// The number of entries and their total size, from a directory scan.
    func measure() -> (count: Int, bytes: Int) {
        var count = 0
        var bytes = 0
        DiskFiles.forEachEntry(in: directory) { name, status in
            guard status.isRegularFile, !DiskFiles.isTemporary(name) else { return }
            count += 1
            bytes += status.size
        }
        return (count, bytes)
    }

    /// ``clean()`` on the calling thread.
    @discardableResult
    public func cleanSync() -> DiskCacheCleanResult {
        let now = Date().timeIntervalSince1970
        let writtenBefore = sizeState.withLock { $0.bytesWrittenEver }
        let expiryDate = config.maxDiskAge >= 0 ? now - config.maxDiskAge : nil
        let byAccess = config.diskExpireType == .accessDate
        var kept: [(name: String, size: Int, date: Double)] = []
        var expired = 0
        var temporaries = 0
        var removedBytes = 0
        var failed = 0
        DiskFiles.forEachEntry(in: directory) { name, status in
            guard status.isRegularFile else { return }
            let path = directory + "/" + name
            if DiskFiles.isTemporary(name) {
                if status.modified < now - Self.temporaryFileGracePeriod, unlink(path) == 0 { temporaries += 1 }
                return
            }
            // A write sets both times; a copy that kept an old access time is still as new
            // as its write.
            let date = byAccess ? max(status.accessed, status.modified) : status.modified
            if let expiryDate, date < expiryDate {
                if unlink(path) == 0 {
                    expired += 1
                    removedBytes += status.size
                } else if errno != ENOENT {
                    failed += 1
                }
                return
            }
            kept.append((name, status.size, date))
        }
        var total = kept.reduce(0) { $0 + $1.size }
        var trimmed = 0
        var remaining = kept.count
        if config.maxDiskSize > 0, total > config.maxDiskSize {
            let target = config.maxDiskSize / 2
            kept.sort { ($0.date, $0.name) < ($1.date, $1.name) }
            for file in kept {
                if total <= target { break }
                if unlink(directory + "/" + file.name) == 0 {
                    removedBytes += file.size
                    trimmed += 1
                } else if errno != ENOENT {
                    failed += 1
                    continue
                }
                // Gone either way: a clean running at the same time may have removed it,
                // and counting it as still there would make this one remove too much.
                total -= file.size
                remaining -= 1
            }
        }
        sizeState.withLock { state in
            state.trackedBytes = total + (state.bytesWrittenEver - writtenBefore)
            state.failedRemovals += failed
        }
        return DiskCacheCleanResult(
            expiredCount: expired, trimmedCount: trimmed, removedBytes: removedBytes,
            temporaryFilesRemoved: temporaries, remainingCount: remaining, remainingBytes: total, failedRemovals: failed
        )
    }
}
