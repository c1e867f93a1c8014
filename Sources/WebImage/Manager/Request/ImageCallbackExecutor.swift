import Dispatch

/// Where a load's completion runs, and where an image target is handed its images
/// (SDWebImage's `SDCallbackQueue` and `SDWebImageContextCallbackQueue`).
///
/// Without one (``ImageRequest/callbackExecutor`` `nil`, the default), a completion runs
/// on the thread that finished the work: a memory hit's before the call returns, any
/// other on a pool thread. With one, every completion of the load — intermediate results,
/// the final result or error, a cancellation — and, for an image target, every
/// ``ImageTarget/apply(_:update:)`` are handed to it as a closure, in the order they
/// happen; progress reports are not (they come often and are best read where they arise).
/// A memory hit then completes when the executor runs it, not before the call returns.
///
/// It is a closure rather than a Swift `SerialExecutor` or `TaskExecutor` because the
/// callbacks it runs are plain closures, and because the loops that GUI toolkits on
/// Linux run (GLib's `g_main_context_invoke`, Qt's `QMetaObject::invokeMethod`, a
/// `DispatchQueue`) take closures, not Swift jobs: wrap your toolkit's "run this on the
/// main loop" call, or use one of the ready-made ones, which include a `TaskExecutor`.
///
///     var request = ImageRequest(url: url)
///     request.callbackExecutor = ImageCallbackExecutor { work in
///         mainLoop.invoke(work)   // the toolkit's main-loop call
///     }
///     tile.setImage(request)   // apply(_:update:) runs on the main loop
public struct ImageCallbackExecutor: Sendable {
    private let submit: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// Creates an executor that hands each callback to `submit`, which must run it once,
    /// later or at once, and should run callbacks in the order it receives them (a serial
    /// queue or main loop does).
    public init(_ submit: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void) {
        self.submit = submit
    }

    /// Hands `work` to the executor.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        submit(work)
    }

    /// Runs each callback asynchronously on `queue` (in order, when the queue is serial).
    public static func dispatchQueue(_ queue: DispatchQueue) -> ImageCallbackExecutor {
        ImageCallbackExecutor { work in queue.async(execute: work) }
    }

    /// Runs each callback on the main actor, in a task of its own. The main actor's work
    /// runs only while the main thread serves it (`dispatchMain()`, a `RunLoop`, an app
    /// built on one).
    public static let mainActor = ImageCallbackExecutor { work in
        Task { @MainActor in work() }
    }

    /// Runs each callback in a task of its own that prefers `executor`.
    public static func taskExecutor(_ executor: any TaskExecutor) -> ImageCallbackExecutor {
        ImageCallbackExecutor { work in
            Task(executorPreference: executor) { work() }
        }
    }
}

extension ImageCallbackExecutor {
    /// `completion` with each call handed to `executor`; `completion` itself when there is
    /// none.
    static func deliver<Value: Sendable>(
        _ completion: @escaping @Sendable (Value) -> Void, on executor: ImageCallbackExecutor?
    ) -> @Sendable (Value) -> Void {
        guard let executor else { return completion }
        return { value in executor.execute { completion(value) } }
    }

    /// Runs `work` on `executor`, or at once without one.
    static func run(_ work: @escaping @Sendable () -> Void, on executor: ImageCallbackExecutor?) {
        if let executor { executor.execute(work) } else { work() }
    }
}
