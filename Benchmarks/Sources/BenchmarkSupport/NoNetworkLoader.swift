import Foundation
import Synchronization
import WebImage

/// An ``ImageLoader`` that must never be reached: it claims `http` and `https` URLs (so
/// the manager takes its usual path and asks the cache first), counts every load it is
/// asked for, and fails it. Benchmarks of cache-served work check ``loads`` stays 0.
public final class NoNetworkLoader: ImageLoader {
    private let count = Atomic<Int>(0)

    /// Creates a loader that has been asked for nothing yet.
    public init() {}

    /// How many loads reached this loader.
    public var loads: Int { count.load(ordering: .relaxed) }

    public func canLoad(_ url: URL) -> Bool {
        url.scheme == "http" || url.scheme == "https"
    }

    public func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        count.add(1, ordering: .relaxed)
        throw .network("NoNetworkLoader: \(url.absoluteString) was to come from the cache, not the network")
    }
}
