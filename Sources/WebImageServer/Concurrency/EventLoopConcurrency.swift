import NIOCore
import NIOPosix

extension WebImageServer {
    /// Runs the process's Swift concurrency on SwiftNIO's event loops (NIO's singleton
    /// `MultiThreadedEventLoopGroup`, which the server listens on), so that a request's
    /// task continues on the thread that reads and writes its connection instead of
    /// hopping to Swift's own thread pool and back for every step.
    ///
    /// Call it once, first thing in the process, before any task runs: `webimage serve`
    /// does, unless `WEBIMAGE_CONCURRENCY_ON_EVENT_LOOPS=false`. Blocking work must then
    /// stay off tasks, as WebImage's own does: libvips and file I/O run on thread pools of
    /// their own.
    ///
    /// - Returns: `false` when the hook could not be installed (another executor was
    ///   installed first, or the platform lacks the hook); Swift's own pool stays in use.
    @discardableResult
    public static func runConcurrencyOnEventLoops() -> Bool {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
