import Foundation
@testable import WebImage

/// Runs `body` with a fresh test origin and downloader, shutting both down afterwards,
/// also when `body` throws.
package func withOriginAndDownloader(
    configure: (inout DownloaderConfig) -> Void = { _ in },
    _ body: (TestOrigin, ImageDownloader) async throws -> Void
) async throws {
    var config = DownloaderConfig()
    // A gated response is held for as long as its test needs, which on a loaded machine
    // (the thread sanitizer on 2 cores) can pass the default timeouts; the tests of those
    // timeouts set their own.
    config.idleTimeout = .seconds(600)
    config.totalTimeout = .seconds(600)
    configure(&config)
    let origin = try await TestOrigin.start()
    let downloader = ImageDownloader(config: config)
    do {
        try await body(origin, downloader)
    } catch {
        await downloader.shutdown()
        try await origin.shutdown()
        throw error
    }
    await downloader.shutdown()
    try await origin.shutdown()
}
