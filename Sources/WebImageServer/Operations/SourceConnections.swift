import ServiceLifecycle
import WebImage

/// The server's source connections as a service of its application: it holds nothing
/// while the server runs, and closes the downloaders' connections once the server has
/// stopped (the application stops its server before its services).
struct SourceConnections: Service {
    /// The sources' downloader, and the S3 endpoint's when `s3://` sources are on.
    let downloaders: [ImageDownloader]

    func run() async throws {
        // Returns at the graceful shutdown, or throws when the service is cancelled.
        try? await gracefulShutdown()
        for downloader in downloaders { await downloader.shutdown() }
    }
}
