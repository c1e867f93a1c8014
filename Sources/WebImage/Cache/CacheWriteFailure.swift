import Foundation

/// A write to a ``DiskCache`` that failed: the disk is full, the directory became
/// read-only or cannot be created, or the file could not be renamed into place.
///
/// The failed write leaves nothing behind (its temporary file is removed) and the entry
/// it would have replaced stays as it was. Callers that store in the background (the
/// manager, a server) keep working without the cache; observe failures with
/// ``DiskCache/observeWriteFailures(_:)`` to report them.
public struct CacheWriteFailure: Sendable, Equatable {
    /// The key that was being written.
    public let key: String
    /// The cache directory written to.
    public let directory: String
    /// What went wrong, with the system's reason (e.g. "No space left on device").
    public let error: ImageError

    /// Creates a failure report.
    public init(key: String, directory: String, error: ImageError) {
        self.key = key
        self.directory = directory
        self.error = error
    }
}
