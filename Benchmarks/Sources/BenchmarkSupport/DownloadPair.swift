import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import WebImage

/// The download pair of `LoadingProfile compare`: `transfers` distinct URLs of an
/// ``HTTPBenchServer`` fetched `concurrency` at a time, by `ImageDownloader.load` and by
/// AsyncHTTPClient used directly.
///
/// The two sides do the same work: the same client configuration (the one
/// `ImageDownloader.init` builds: singleton event loop group, no redirects, no
/// decompression, the same connect and read timeouts, ≥ 8 connections per host, no
/// connection retries, no tracer unless one is bootstrapped), the same request headers (the downloader's default `Accept`
/// and `User-Agent`), the same total deadline, `concurrency` worker tasks pulling URL
/// indexes on each side, no decoding, and each body in memory as one contiguous buffer
/// at the end. Each side keeps its connections between rounds, so after ``warmUp()``
/// both run on warm pools.
public final class DownloadPair: Sendable {
    public let server: HTTPBenchServer
    public let downloader: ImageDownloader
    public let directClient: HTTPClient
    public let transfers: Int
    public let concurrency: Int
    private let config: DownloaderConfig
    private let batch = Atomic<Int>(0)

    public init(transfers: Int = 1_000, concurrency: Int = 6, bodySize: Int = 100 * 1024) throws {
        self.transfers = transfers
        self.concurrency = concurrency
        server = try HTTPBenchServer(bodySize: bodySize)
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = concurrency
        self.config = config
        downloader = ImageDownloader(config: config)
        directClient = Self.makeDirectClient(like: config)
    }

    /// An AsyncHTTPClient client configured as `ImageDownloader.init` configures its own
    /// for `config`, field by field.
    public static func makeDirectClient(like config: DownloaderConfig) -> HTTPClient {
        var client = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(config.connectTimeout), read: TimeAmount(config.idleTimeout)),
            decompression: .disabled
        )
        client.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, config.maxConcurrentDownloads)
        client.connectionPool.retryConnectionEstablishment = false
        // ImageDownloader reports to no tracer unless one is bootstrapped (none is here).
        client.tracing.tracer = nil
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: client)
    }

    /// Megabytes (10⁶ bytes) one side moves in a round.
    public var megabytesPerRound: Double { Double(transfers * server.bodySize) / 1_000_000 }

    /// One round of each side, so that both pools hold open connections.
    public func warmUp() async throws {
        _ = try await webImageRound()
        _ = try await directRound()
    }

    /// `transfers` downloads through `ImageDownloader.load`; returns the bytes received.
    public func webImageRound() async throws -> Int {
        let prefix = "\(server.baseURL)/w/\(batch.add(1, ordering: .relaxed).oldValue)/"
        let downloader = self.downloader
        return try await workers { i in
            try await downloader.load(URL(string: prefix + String(i))!).data.count
        }
    }

    /// The same transfers with `HTTPClient.execute` and `body.collect`; returns the bytes received.
    public func directRound() async throws -> Int {
        try await directRound(using: directClient)
    }

    /// ``directRound()`` made by another client (one from ``makeDirectClient(like:)``).
    public func directRound(using client: HTTPClient) async throws -> Int {
        let prefix = "\(server.baseURL)/d/\(batch.add(1, ordering: .relaxed).oldValue)/"
        let headers = config.headers, timeout = TimeAmount(config.totalTimeout)
        return try await workers { i in
            var request = HTTPClientRequest(url: prefix + String(i))
            request.headers = headers
            let response = try await client.execute(request, deadline: .now() + timeout)
            precondition(response.status == .ok)
            return try await response.body.collect(upTo: 1 << 20).readableBytes
        }
    }

    /// Runs `transfers` calls of `body(i)` on `concurrency` worker tasks; returns the bytes.
    private func workers(_ body: @escaping @Sendable (Int) async throws -> Int) async throws -> Int {
        try await runTransferWorkers(transfers: transfers, concurrency: concurrency, body)
    }
}
