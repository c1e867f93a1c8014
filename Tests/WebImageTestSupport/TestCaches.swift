import Foundation
@testable import WebImage

/// Throw-away caches in their own temporary directories.
package enum TestCaches {
    package static func make(maxDiskSize: Int = 0, configure: (inout CacheConfig) -> Void = { _ in }) -> ImageCache {
        var config = CacheConfig()
        config.rootDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-test-\(UUID().uuidString)").path
        config.maxDiskSize = maxDiskSize
        config.autoCleanInterval = nil
        configure(&config)
        return ImageCache(config: config)
    }
}

extension ImageManager {
    /// The manager's cache as the ``ImageCache`` a test made it with (``TestCaches/make(maxDiskSize:configure:)``),
    /// for what only an `ImageCache` has: its configuration, its disk cache, counts.
    package var imageCache: ImageCache {
        guard let cache = cache as? ImageCache else { preconditionFailure("this manager's cache is not an ImageCache") }
        return cache
    }
}
