import Logging
import ServiceLifecycle
import WebImageLocking

/// Holds ended spans in a bounded queue and exports them in batches: when a batch is full,
/// else every schedule delay, and whatever is left on graceful shutdown. Spans that find
/// the queue full are dropped and counted (``droppedSpans``). Run it as a `Service` in the
/// server's `ServiceGroup`, after the application, so it flushes once requests are done.
public final class BatchSpanProcessor: Service {
    private let exporter: any SpanExporter
    private let maxQueueSize: Int
    private let maxBatchSize: Int
    private let scheduleDelay: Duration
    private let logger: Logger
    private let state = InlineLocked(State())
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    private struct State {
        var queue: [FinishedSpan] = []
        var dropped = 0
        var exported = 0
        var failedExports = 0
    }

    /// A processor exporting through `exporter`, holding at most `maxQueueSize` spans and
    /// sending at most `maxBatchSize` at once.
    public init(exporter: any SpanExporter, maxQueueSize: Int = 2048, maxBatchSize: Int = 512, scheduleDelay: Duration = .seconds(5), logger: Logger = Logger(label: "webimage.tracing")) {
        self.exporter = exporter
        self.maxQueueSize = max(1, maxQueueSize)
        self.maxBatchSize = max(1, min(maxBatchSize, maxQueueSize))
        self.scheduleDelay = scheduleDelay
        self.logger = logger
        (wakeUps, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The processor ``TracingConfiguration`` describes.
    public convenience init(configuration: TracingConfiguration, exporter: any SpanExporter, logger: Logger = Logger(label: "webimage.tracing")) {
        self.init(
            exporter: exporter, maxQueueSize: configuration.maxQueueSize, maxBatchSize: configuration.maxExportBatchSize,
            scheduleDelay: configuration.scheduleDelay, logger: logger
        )
    }

    /// Spans dropped because the queue was full.
    public var droppedSpans: Int { state.withLock { $0.dropped } }
    /// Spans the exporter took.
    public var exportedSpans: Int { state.withLock { $0.exported } }
    /// Spans waiting for export.
    public var queuedSpans: Int { state.withLock { $0.queue.count } }

    /// Queues an ended span; drops it when the queue is full.
    func enqueue(_ span: FinishedSpan) {
        let batchIsFull = state.withLock { state -> Bool in
            guard state.queue.count < maxQueueSize else {
                state.dropped += 1
                return false
            }
            state.queue.append(span)
            return state.queue.count == maxBatchSize
        }
        if batchIsFull { wake.yield() }
    }

    /// Starts an export of what is queued without waiting for the schedule.
    func exportSoon() {
        wake.yield()
    }

    /// Exports the spans queued now, in batches, and returns when they are sent, or at the
    /// first batch that fails (its spans are dropped; the rest wait for the next export, so
    /// a receiver that is down costs one timeout per export, also at shutdown).
    public func flush() async {
        while true {
            let batch = state.withLock { state -> [FinishedSpan] in
                let batch = Array(state.queue.prefix(maxBatchSize))
                state.queue.removeFirst(batch.count)
                return batch
            }
            if batch.isEmpty { return }
            do {
                try await exporter.export(batch)
                state.withLock { $0.exported += batch.count }
            } catch {
                let failures = state.withLock { state -> Int in
                    state.failedExports += 1
                    return state.failedExports
                }
                // The first failure, then every hundredth: a receiver that is down must not flood the log.
                if failures == 1 || failures % 100 == 0 {
                    logger.warning("trace export failed", metadata: ["error": "\(error)", "spans": "\(batch.count)", "failedExports": "\(failures)"])
                }
                return
            }
        }
    }

    /// Exports on schedule until graceful shutdown or cancellation, then exports what is
    /// left and shuts the exporter down.
    public func run() async throws {
        let delay = scheduleDelay
        let wake = self.wake
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: delay)
                wake.yield()
            }
        }
        await cancelWhenGracefulShutdown {
            for await _ in self.wakeUps {
                await self.flush()
            }
        }
        ticker.cancel()
        await flush()
        await exporter.shutdown()
        let dropped = droppedSpans
        if dropped > 0 {
            logger.warning("spans dropped because the export queue was full", metadata: ["dropped": "\(dropped)", "maxQueueSize": "\(maxQueueSize)"])
        }
    }
}
