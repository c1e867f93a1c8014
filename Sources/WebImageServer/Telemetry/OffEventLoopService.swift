import Dispatch
import ServiceLifecycle

/// Runs a service's tasks on a dispatch queue rather than on SwiftNIO's event loops.
///
/// `webimage serve` runs Swift concurrency on the event loops
/// (``WebImageServer/runConcurrencyOnEventLoops()``), so an object released by a task is
/// released on an event loop thread. swift-otel's OTLP/HTTP exporter shuts its HTTP
/// client down synchronously when it is released, and AsyncHTTPClient stops the process
/// when that happens on an event loop thread ("syncShutdown() must not be called when on
/// an EventLoop"): the exporters are released as their service ends, at every stop. Run
/// on this executor, the exporters' services end, and release them, on a queue's thread.
struct OffEventLoopService: Service {
    /// The service run.
    let service: any Service
    private let executor = DispatchQueueTaskExecutor(label: "webimage.telemetry")

    func run() async throws {
        try await withTaskExecutorPreference(executor) {
            try await service.run()
        }
    }
}
