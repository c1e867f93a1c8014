import ServiceLifecycle
import WebImage

/// The server's source connections as a service of its application: it holds nothing
/// while the server runs, and closes the downloader's connections once the server has
/// stopped (the application stops its server before its services).
struct SourceConnections: Service {
    let downloader: ImageDownloader

    func run() async throws {
        // Returns at the graceful shutdown, or throws when the service is cancelled.
        try? await gracefulShutdown()
        await downloader.shutdown()
    }
}
