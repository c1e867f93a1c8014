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
