import NIOCore
import NIOPosix

extension WebImageServer {
    /// Runs the process's Swift concurrency on SwiftNIO's event loops (NIO's singleton
    /// `MultiThreadedEventLoopGroup`, which the server listens on), so that a request's
    /// task continues on the thread that reads and writes its connection instead of
    /// hopping to Swift's own thread pool and back for every step.
    ///
    /// Call it once, early, before the server starts: `webimage serve` does. Blocking work
    /// must then stay off tasks, as WebImage's own does: libvips, file I/O and name
    /// lookups run on thread pools of their own. On the cached path (one cached variant,
    /// wrk -t2 -c64, 2 cores) it raised the proxy's requests/s by 8 %, and Hummingbird's
    /// own by 28 %, and the proxy makes no futex call a request (threads waking each
    /// other) where it makes 1.5 without it.
    ///
    /// - Returns: `false` when the hook could not be installed (another executor was
    ///   installed first, or the platform lacks the hook); Swift's own pool stays in use.
    @discardableResult
    public static func runConcurrencyOnEventLoops() -> Bool {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
