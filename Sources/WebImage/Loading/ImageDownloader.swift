import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Tracing
import WebImageLocking

/// Downloads image bytes over HTTP(S) on AsyncHTTPClient (SDWebImageDownloader's counterpart).
///
/// One transfer per URL is in flight: later callers join it, each with its own progress
/// and completion; cancelling one caller detaches only it; the last caller's cancel stops
/// the transfer. At most ``maxConcurrentDownloads`` transfers run at once, and at most
/// ``DownloaderConfig/maxConcurrentDownloadsPerHost`` from one host, started no faster than
/// ``DownloaderConfig/rateLimit`` allows; the rest wait by priority (the highest of the
/// callers waiting for each), then FIFO or LIFO. A transfer ends by ``DownloaderConfig/totalTimeout``, its
/// body included. Redirects are followed here, hop by hop, so that
/// ``DownloaderConfig/hopGuard`` can veto each one.
public final class ImageDownloader: ImageLoader, Sendable {
    /// The process-wide downloader with the default configuration.
    public static let shared = ImageDownloader()

    /// Download events (started, response, stopped, finished).
    public let events: ImageEvents

    private let client: HTTPClient
    /// The clients of hops pinned to an address (``DownloaderConfig/hopAddress``).
    private let pinnedClients: PinnedClientPool
    /// The client, the settings and what else a transfer needs; replaced when a setting changes.
    private let environment: Locked<TransferEnvironment>
    /// The transfers callers can join, by coalescing key.
    private let inFlight = SharedWorkPool<String, DownloadOperation>()
    private let queue: DownloadQueue
    private let box: Box

    /// Breaks the init-order cycle between the queue (which starts operations) and self.
    private final class Box: Sendable {
        let downloader = Locked<ImageDownloader?>(nil)
    }

    /// Creates a downloader with its own HTTP client. Call ``shutdown()`` when done with
    /// it (the shared downloader lives as long as the process).
    public init(config: DownloaderConfig = DownloaderConfig(), events: ImageEvents = ImageEvents()) {
        self.events = events
        var clientConfig = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(config.connectTimeout), read: TimeAmount(config.idleTimeout)),
            decompression: .disabled
        )
        clientConfig.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, config.maxConcurrentDownloads)
        // By default the client retries a refused connection until the connect timeout;
        // an image load should fail at once and let the caller decide.
        clientConfig.connectionPool.retryConnectionEstablishment = false
        if config.keepAliveTimeout > .zero { clientConfig.connectionPool.idleTimeout = TimeAmount(config.keepAliveTimeout) }
        clientConfig.tracing.tracer = Self.tracer()
        let tls = config.tls?.applied(to: .makeClientConfiguration()) ?? .makeClientConfiguration()
        if config.tls != nil { clientConfig.tlsConfiguration = tls }
        var unverifiedTLS = tls
        unverifiedTLS.certificateVerification = .none
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfig)
        self.client = client
        let pinnedClients = PinnedClientPool(
            configuration: clientConfig, idleLifetime: config.pinnedClientIdleLifetime, maxClients: config.maxPinnedClients
        )
        self.pinnedClients = pinnedClients
        self.environment = Locked(TransferEnvironment(
            client: client, pinnedClients: pinnedClients, config: config, events: events, cookies: CookieJar(),
            unverifiedTLS: unverifiedTLS
        ))
        let box = Box()
        self.box = box
        self.queue = DownloadQueue(
            maxConcurrent: config.maxConcurrentDownloads, maxPerHost: config.maxConcurrentDownloadsPerHost, order: config.executionOrder,
            rateLimit: config.rateLimit
        ) { operation in
            box.downloader.withLock { $0 }?.start(operation)
        }
        box.downloader.withLock { $0 = self }
    }

    /// The tracer the client reports requests to: the one bootstrapped in
    /// `InstrumentationSystem`, or none. With none bootstrapped AsyncHTTPClient would still
    /// build every request's span attributes (a handful of dictionaries) for a tracer that
    /// drops them.
    private static func tracer() -> (any Tracer)? {
        let bootstrapped = InstrumentationSystem.tracer
        return bootstrapped is NoOpTracer ? nil : bootstrapped
    }

    deinit {
        // The clients must be shut down before they go; do it without blocking.
        client.shutdown { _ in }
        pinnedClients.shutDownWithoutWaiting()
    }

    /// Stops every download and shuts the HTTP clients down: the shared one and those of
    /// pinned and proxied hops (``DownloaderConfig/hopAddress``, ``DownloaderConfig/proxy``).
    public func shutdown() async {
        cancelAllDownloads()
        box.downloader.withLock { $0 = nil }
        try? await client.shutdown()
        await pinnedClients.shutdown()
    }

    // MARK: Settings

    /// Downloads running at once; changing it takes effect immediately.
    public var maxConcurrentDownloads: Int {
        get { queue.maxConcurrent }
        set {
            changeConfig { $0.maxConcurrentDownloads = newValue }
            queue.setMaxConcurrent(newValue)
        }
    }

    /// While suspended, queued downloads wait; running ones go on.
    public var isSuspended: Bool {
        get { queue.isSuspended }
        set { queue.setSuspended(newValue) }
    }

    /// Transfers running or queued.
    public var currentDownloadCount: Int { queue.count }

    /// Sets (or with `nil`, removes) a header sent with every later request.
    public func setValue(_ value: String?, forHTTPHeaderField name: String) {
        changeConfig {
            if let value { $0.headers.replaceOrAdd(name: name, value: value) } else { $0.headers.remove(name: name) }
        }
    }

    private func changeConfig(_ change: (inout DownloaderConfig) -> Void) {
        environment.withLock { $0 = $0.changingConfig(change) }
    }

    /// The value of a header sent with every request.
    public func value(forHTTPHeaderField name: String) -> String? {
        config.headers.first(name: name)
    }

    /// The current configuration (a copy).
    public var config: DownloaderConfig { environment.withLock { $0 }.config }

    /// The AsyncHTTPClient client the downloader sends its requests with, so that a
    /// benchmark can make the same transfers on the same connections without the downloader.
    @_spi(Benchmarking) public var httpClient: HTTPClient { client }

    /// How many clients for pinned hops the downloader holds and how many are not yet shut
    /// down (see ``DownloaderConfig/hopAddress``).
    var pinnedClientCounts: PinnedClientPool.Counts { pinnedClients.counts }

    // MARK: Downloading

    /// Whether `url` is an `http` or `https` URL with a host.
    public func canLoad(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && url.host?.isEmpty == false
    }

    /// Downloads `url`; the completion runs exactly once, with the bytes or an ``ImageError``.
    @discardableResult
    public func download(
        _ url: URL,
        options: DownloadOptions = DownloadOptions(),
        progress: (@Sendable (DownloadProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<DownloadResponse, ImageError>) -> Void
    ) -> DownloadToken? {
        guard canLoad(url) else {
            completion(.failure(.invalidURL(url.absoluteString)))
            return nil
        }
        let key = options.coalescingKey(for: url)
        let progressInterval = environment.withLock { $0 }.config.minimumProgressInterval
        // Inside a load, the download follows the load's priority; called directly, the options'.
        let priority = SharedPriority.current ?? SharedPriority(options.priority)
        let subscription = inFlight.join(key, progress: progress, completion: completion, priority: priority) {
            DownloadOperation(url: url, key: key, options: options, progressInterval: progressInterval)
        }
        if subscription.isNew {
            let operation = subscription.holder
            let queue = self.queue
            // Abandoned while queued: it must never start.
            operation.sharedWork.onAbandon { [unowned operation] in queue.removePending(operation) }
            _ = operation.priority.observe { [unowned operation] _, _ in queue.reprioritize(operation) }
            queue.submit(operation)
        }
        return DownloadToken(url: url, subscription: subscription)
    }

    /// Downloads `url`. Cancelling the calling task cancels this caller only.
    public func load(
        _ url: URL,
        options: DownloadOptions = DownloadOptions(),
        progress: (@Sendable (DownloadProgress) -> Void)? = nil
    ) async throws(ImageError) -> DownloadResponse {
        let cancellation = CancellationLink<DownloadToken>()
        let result = await withTaskCancellationHandler {
            // Unchecked: a DownloadOperation completes each caller exactly once (the stress
            // test counts it), and the checked kind costs an allocation a load.
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<DownloadResponse, ImageError>, Never>) in
                let token = download(url, options: options, progress: progress) { continuation.resume(returning: $0) }
                if let token { cancellation.attach(token) { $0.cancel() } }
            }
        } onCancel: {
            cancellation.cancel { $0.cancel() }
        }
        return try result.get()
    }

    /// Cancels every download: each caller completes with `cancelled`.
    public func cancelAllDownloads() {
        for operation in inFlight.all { operation.sharedWork.cancelAll() }
    }

    // MARK: Operation lifecycle

    private func start(_ operation: DownloadOperation) {
        let environment = environment.withLock { $0 }
        operation.timeline.withLock { $0.started = .now }
        let transfer = HTTPTransfer(environment: environment, operation: operation)
        // The task keeps the downloader until the transfer ends (`shutdown` cancels it). It
        // runs in the first caller's trace context, not in that of whoever started it.
        let task = ServiceContext.$current.withValue(operation.serviceContext) {
            Task {
                let result: Result<DownloadResponse, ImageError>
                do throws(ImageError) {
                    var response = try await transfer.run()
                    response.metrics = operation.timeline.withLock { $0 }.metrics(bytes: response.receivedBytes)
                    result = .success(response)
                } catch {
                    result = .failure(error)
                }
                operation.transferEnded()
                // The next caller for the URL starts a fresh transfer.
                inFlight.retire(operation.key, operation)
                // The slot is free once the network is: callers' completions (which run user
                // code) must not hold up the next download.
                queue.runningOperationEnded(operation)
                operation.finish(result)
            }
        }
        // The whole transfer, body included, ends by its deadline: AsyncHTTPClient's own
        // deadline covers the response head only, and a body that trickles in would
        // otherwise be bounded only by the idle timeout of each chunk.
        operation.arm(MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: environment.totalTimeout) {
            operation.deadlinePassed.store(true, ordering: .sequentiallyConsistent)
            task.cancel()
        })
        // Abandoned between the queue and here: the task is cancelled at once.
        operation.sharedWork.attach(task)
    }
}
