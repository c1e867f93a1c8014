import Foundation
import Synchronization
import WebImage

/// The pinned-connection pair of `LoadingProfile pinned`: `transfers` distinct URLs of an
/// ``HTTPBenchServer`` fetched `concurrency` at a time by two `ImageDownloader`s with the
/// default settings, one naming the server `localhost` and pinning every hop to 127.0.0.1
/// with `DownloaderConfig.hopAddress` (as the image proxy pins each hop to the address its
/// source guard approved), the other naming it by its IP literal, without the hook.
///
/// The hook answers at once (no DNS lookup: that is the guard's cost, not the
/// connection's), so the pair measures what pinning costs a transfer: the hook's call, the
/// lease on the pooled client for the host and address, and that client's connections
/// against the shared client's. Each downloader keeps its connections between rounds.
public final class PinnedDownloadPair: Sendable {
    public let server: HTTPBenchServer
    /// Names the server `localhost`; every hop pinned to 127.0.0.1.
    public let pinned: ImageDownloader
    /// Names the server `127.0.0.1`; no hook.
    public let literal: ImageDownloader
    public let transfers: Int
    public let concurrency: Int
    private let hops: Counter
    private let batch = Atomic<Int>(0)

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    public init(server: HTTPBenchServer, transfers: Int = 1_000, concurrency: Int = 6) {
        self.server = server
        self.transfers = transfers
        self.concurrency = concurrency
        let hops = Counter()
        self.hops = hops
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = concurrency
        literal = ImageDownloader(config: config)
        config.hopAddress = { url in
            hops.value.add(1, ordering: .relaxed)
            return url.host == "localhost" ? "127.0.0.1" : nil
        }
        pinned = ImageDownloader(config: config)
    }

    /// Megabytes (10⁶ bytes) one side moves in a round.
    public var megabytesPerRound: Double { Double(transfers * server.bodySize) / 1_000_000 }

    /// Hops the pinned side's hook was asked for so far.
    public var pinnedHops: Int { hops.value.load(ordering: .relaxed) }

    /// One round of each side, so that both hold open connections.
    public func warmUp() async throws {
        _ = try await pinnedRound()
        _ = try await literalRound()
    }

    /// `transfers` downloads of `http://localhost:PORT/…`, every hop pinned; returns the bytes received.
    public func pinnedRound() async throws -> Int {
        let before = pinnedHops
        let bytes = try await round(of: pinned, base: "http://localhost:\(server.port)")
        precondition(pinnedHops - before == transfers, "a transfer was not pinned")
        return bytes
    }

    /// `transfers` downloads of `http://127.0.0.1:PORT/…`; returns the bytes received.
    public func literalRound() async throws -> Int {
        try await round(of: literal, base: server.baseURL)
    }

    /// `transfers` distinct URLs under `base` loaded by `downloader` on `concurrency` worker tasks.
    private func round(of downloader: ImageDownloader, base: String) async throws -> Int {
        let prefix = "\(base)/p/\(batch.add(1, ordering: .relaxed).oldValue)/"
        return try await runTransferWorkers(transfers: transfers, concurrency: concurrency) { i in
            try await downloader.load(URL(string: prefix + String(i))!).data.count
        }
    }
}
