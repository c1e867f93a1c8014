/// Where a served variant came from.
enum CacheOutcome: String, Sendable {
    /// The variant cache in memory.
    case memory
    /// The variant cache on disk.
    case disk
    /// Neither: the variant was made for this request (its source possibly from the disk cache).
    case miss
}
