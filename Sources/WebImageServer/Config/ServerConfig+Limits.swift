import Foundation
import NIOCore
import WebImage

extension ServerConfig {
    /// The limits on sources, results and the work in flight.
    public struct Limits: Sendable {
        /// The largest source download in bytes. Default 64 MiB.
        public var maxSourceBytes = 64 << 20
        /// The most pixels a source may have, all frames counted. Default 50 megapixels.
        public var maxSourceResolution = 50_000_000
        /// How many frames of an animation are processed: its first `maxAnimationFrames`; at 1
        /// the output is a still of the first frame. Default 100.
        public var maxAnimationFrames = 100
        /// The largest width or height a URL may ask for (after dpr), and the largest side of a
        /// result: a larger one (from dpr, zoom or min sizes) is scaled down to it. Default 8192.
        public var maxResultDimension = 8192
        /// The longest a request may take from arrival to response. Default 30 s.
        public var requestTimeout: Duration = .seconds(30)
        /// Requests processed at once (decode, transform, encode), once their source is in. Default 2 × cores.
        public var workers = 2 * System.coreCount
        /// Requests that may wait for a worker; more are answered 429. Default 256.
        public var queueSize = 256
        /// The most encodes one image may take (`format:best` × `quality:auto` × `max_bytes`);
        /// past it, the best result so far is served. Default 24.
        public var maxEncodes = ImageManager.defaultMaxEncodesPerOutput
        /// Bytes the workers may reserve at once for the images they make (the decode, the
        /// largest image on the way, the encodes, see `MemoryBudget`): a worker whose image does
        /// not fit waits, holding its slot, until others finish; one that could never fit is
        /// refused (422). Default a quarter of the machine's memory, or of the container's limit
        /// when lower.
        public var memoryBudget = MemoryBudget.defaultBytes
        /// The most pixels one frame of an animated source may have; when set, an animation is
        /// checked frame by frame against it instead of against ``maxSourceResolution``. `nil`:
        /// no such limit.
        public var maxAnimationFrameResolution: Int?

        /// The defaults.
        public init() {}
    }
}

extension ServerConfig.Limits {
    /// The limits every source is decoded under: its pixels, its frames and, when set, the
    /// pixels of each frame.
    public var imageLimits: ImageLimits {
        var limits = ImageLimits(maxPixels: maxSourceResolution, maxFrames: maxAnimationFrames)
        limits.maxFramePixels = maxAnimationFrameResolution
        return limits
    }

    /// The limiter of the work of making variants: ``workers`` at once, ``queueSize``
    /// waiting, within the ``memoryBudget``.
    public func workLimiter() -> WorkLimiter {
        WorkLimiter(workers: workers, queueSize: queueSize, memoryBudget: MemoryBudget(bytes: memoryBudget))
    }
}
