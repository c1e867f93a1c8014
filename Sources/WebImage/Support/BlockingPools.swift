import NIOCore
import NIOPosix

/// The thread pools the library runs blocking work on — the caches' file I/O, local
/// source files, and the coders' and the pipeline's decodes and encodes — so that none of
/// it holds a thread of the Swift cooperative pool (or an event loop).
package enum BlockingPools {
    /// File reads and writes. Page-cache hits are short and a cold disk mostly waits, so a
    /// few threads more than cores keep the disk busy without fighting for CPU.
    package static let io: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(4, System.coreCount))
        pool.start()
        return pool
    }()

    /// Opening and reading local source files (``RootedFileLoader``): threads of their
    /// own, so that a file that blocks (a slow disk, a network mount) holds none of the
    /// cache's, the event loops' or the Swift executor's threads.
    package static let files: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(4, System.coreCount))
        pool.start()
        return pool
    }()

    /// Decoding and encoding (disk hits, images for the disk, the pipeline's stages):
    /// CPU-bound, one thread a core.
    package static let coding: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(1, System.coreCount))
        pool.start()
        return pool
    }()

    /// Runs `body` on `pool` and returns its result. Unlike `runIfActive`, cancelling the
    /// awaiting task does not drop work not yet started: a store that was asked for happens.
    package static func run<T: Sendable>(
        on pool: NIOThreadPool,
        _ body: @escaping @Sendable () throws(ImageError) -> T
    ) async throws(ImageError) -> T {
        let result: Result<T, ImageError> = await withCheckedContinuation { continuation in
            pool.submit { state in
                switch state {
                case .active:
                    continuation.resume(returning: Result(catching: body))
                case .cancelled:
                    continuation.resume(returning: .failure(.cacheFailure("the cache's thread pool has been shut down")))
                }
            }
        }
        return try result.get()
    }

    /// Runs `body` on `pool` and returns its result, or `nil` when the pool is shut down.
    package static func run<T: Sendable>(on pool: NIOThreadPool, _ body: @escaping @Sendable () -> T?) async -> T? {
        await withCheckedContinuation { continuation in
            pool.submit { state in
                switch state {
                case .active: continuation.resume(returning: body())
                case .cancelled: continuation.resume(returning: nil)
                }
            }
        }
    }
}
