import BenchmarkSupport
import Foundation
import WebImage

/// 500 URLs whose images are in a fresh disk cache, and a manager whose loader fails any
/// load it is asked for (`NoNetworkLoader`), so that every image must come from the disk.
final class DiskCachedURLs: Sendable {
    /// How many URLs, and disk entries.
    static let count = 500
    /// The size of each cached image: a list thumbnail.
    static let imageSize = PixelSize(width: 320, height: 240)

    /// The URLs, `https://images.invalid/prefetch/<n>.jpg` (`.invalid` never resolves).
    let urls: [URL]
    /// Each URL's cache key, in the same order.
    let keys: [String]
    /// The cache the manager uses, with its own root folder.
    let cache: ImageCache
    /// The manager's loader: fails, and counts, any load it is asked for.
    let loader: NoNetworkLoader
    /// The manager the prefetcher loads through.
    let manager: ImageManager
    /// The cache's root folder, removed at teardown.
    let directory: String
    /// The bytes each entry holds (the same JPEG for every URL).
    let jpeg: Data

    /// Makes the cache in a fresh temporary folder and writes the 500 entries.
    init() throws {
        let directory = PosixFiles.temporaryDirectory("webimage-bench-prefetch")
        var config = CacheConfig()
        config.rootDirectory = directory
        config.autoCleanInterval = nil
        let cache = ImageCache(config: config)
        let loader = NoNetworkLoader()
        let manager = ImageManager(cache: cache, loader: loader)
        let size = Self.imageSize
        let jpeg = try VipsCoder.shared.encode(
            Image(
                pixels: Fixtures.pixels(width: size.width, height: size.height, seed: 0x5EED_0320, grain: 64),
                width: size.width, height: size.height, channels: 3
            ),
            options: ImageEncodeOptions(format: .jpeg, quality: 85)
        )
        let urls = (0..<Self.count).map { URL(string: "https://images.invalid/prefetch/\($0).jpg")! }
        let keys = urls.map { manager.cacheKey(for: $0)! }
        for key in keys {
            try cache.diskCache!.storeSync(jpeg, forKey: key)
        }
        self.directory = directory
        self.cache = cache
        self.loader = loader
        self.manager = manager
        self.jpeg = jpeg
        self.urls = urls
        self.keys = keys
    }

    /// The hand-made equivalent of one prefetch, on the calling thread: for each key, read
    /// the entry (`DiskCache.dataSync`), decode it (`VipsCoder.decode`) and put the image
    /// in memory (`ImageCache.storeToMemory`). Returns how many images it stored.
    func loadByHand() throws -> Int {
        var stored = 0
        for key in keys {
            guard let data = cache.diskCache!.dataSync(forKey: key) else { continue }
            cache.storeToMemory(try VipsCoder.shared.decode(data), forKey: key)
            stored += 1
        }
        return stored
    }
}
