import ArgumentParser
import Foundation
import WebImage

/// `--cache-dir`, shared by every command that uses the cache.
struct CacheLocationOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "The cache's root directory.",
            discussion: "Default: $XDG_CACHE_HOME/webimage when XDG_CACHE_HOME is set, else ~/.cache/webimage (the library's default cache). Entries live in its 'default' sub-directory.",
            valueName: "dir"
        )
    )
    var cacheDirectory: String?

    /// The cache configuration: the library's defaults, rooted at `--cache-dir` when given,
    /// without the hourly clean timer and without a trim when the cache is opened (the tool
    /// runs for seconds; `cache clean` cleans and reports it, and `cache info --max-size`
    /// must not remove anything behind its back).
    func cacheConfig() -> CacheConfig {
        var config = CacheConfig()
        if let cacheDirectory {
            config.rootDirectory = URL(fileURLWithPath: cacheDirectory).standardizedFileURL.path
        }
        config.autoCleanInterval = nil
        config.trimsWhenOpened = false
        return config
    }
}

/// The library pipeline one command runs on: a cache, a downloader (with file and data
/// URL loaders) and the manager over them — the same `ImageManager` every face of
/// WebImage uses.
struct Pipeline: Sendable {
    let cache: ImageCache
    /// The cache's disk tier, for the commands that list and rewrite its entries.
    let disk: DiskCache
    let downloader: ImageDownloader
    let manager: ImageManager

    /// Runs `body` with a pipeline on `config`, shutting the downloader down afterwards,
    /// also when `body` throws.
    static func with<T: Sendable>(
        _ config: CacheConfig, downloader downloaderConfig: DownloaderConfig = DownloaderConfig(),
        _ body: (Pipeline) async throws -> T
    ) async throws -> T {
        let disk = DiskCache(config: config)
        let cache = ImageCache(config: config, diskTier: disk)
        let downloader = ImageDownloader(config: downloaderConfig)
        let manager = ImageManager(cache: cache, loader: ImageLoaders([downloader, FileLoader(), DataURLLoader()]))
        let pipeline = Pipeline(cache: cache, disk: disk, downloader: downloader, manager: manager)
        do {
            let result = try await body(pipeline)
            await downloader.shutdown()
            return result
        } catch {
            await downloader.shutdown()
            throw error
        }
    }
}
