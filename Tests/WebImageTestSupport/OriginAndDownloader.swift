import Foundation
@testable import WebImage

/// Runs `body` with a fresh test origin and downloader, shutting both down afterwards,
/// also when `body` throws.
package func withOriginAndDownloader(
    configure: (inout DownloaderConfig) -> Void = { _ in },
    _ body: (TestOrigin, ImageDownloader) async throws -> Void
) async throws {
    var config = DownloaderConfig()
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
