import WebImageLocking

/// The regions S3 named for buckets that live outside the configured one, so that later
/// loads sign for the right region at once. Bounded: past its limit it starts over.
final class S3BucketRegions: Sendable {
    private let regions = InlineLocked<[String: String]>([:])
    private let limit: Int

    init(limit: Int = 1024) {
        self.limit = limit
    }

    /// The region S3 named for `bucket`, if it named one.
    func region(of bucket: String) -> String? {
        regions.withLock { $0[bucket] }
    }

    /// Remembers that `bucket` lives in `region`.
    func remember(_ region: String, for bucket: String) {
        regions.withLock { regions in
            if regions.count >= limit { regions.removeAll() }
            regions[bucket] = region
        }
    }
}
