import WebImageLocking

/// A bounded buffer of an animation's decoded frames: at most ``capacity`` frames are held,
/// whatever the animation's length, so memory follows the capacity and not the frame count.
///
/// A frame asked for with ``frame(at:)`` and not held is decoded by the provider (an
/// ``AnimatedImage`` decodes it from the encoded bytes) and kept. ``prefetch(_:)`` says
/// which frames come next, in the order they will be shown, and decodes those not held.
/// When the buffer is full, the frame kept least is the one needed last: neither the
/// frame last asked for nor among the upcoming frames, or else the upcoming frame needed
/// furthest ahead; among frames not needed, the one used longest ago.
///
/// ``AnimatedImagePlayer`` asks for each frame as it shows it and prefetches the frames
/// after it. Safe to use from several threads: the buffer is behind a lock, and decoding
/// happens outside it.
public final class AnimatedImageFrames: Sendable {
    /// What a buffer has done: how many frames it holds and held at most, and how many it
    /// decoded. For tests and instrumentation.
    public struct Statistics: Sendable, Hashable {
        /// Frames held now.
        public var bufferedFrames: Int
        /// The most frames held at any one time; never more than ``AnimatedImageFrames/capacity``.
        public var peakBufferedFrames: Int
        /// Bytes of pixels held now (``Image/memoryCost`` of each frame held).
        public var bufferedBytes: Int
        /// The most bytes of pixels held at any one time.
        public var peakBufferedBytes: Int
        /// Frames the provider decoded for this buffer.
        public var decodedFrames: Int
        /// Requests served by a frame already held.
        public var hits: Int
    }

    /// The frames held, their usefulness, and the counts.
    private struct Buffer {
        var frames: [Int: Image] = [:]
        var lastUse: [Int: UInt64] = [:]
        var clock: UInt64 = 0
        var current: Int?
        var upcoming: [Int] = []
        var statistics = Statistics(
            bufferedFrames: 0, peakBufferedFrames: 0, bufferedBytes: 0, peakBufferedBytes: 0, decodedFrames: 0, hits: 0
        )

        /// 0 for the frame last asked for, 1… for the upcoming frames in order, `Int.max`
        /// for any other: lower is kept first.
        func rank(_ index: Int) -> Int {
            if index == current { return 0 }
            return upcoming.firstIndex(of: index).map { $0 + 1 } ?? .max
        }

        /// Keeps `image` as frame `index` unless the buffer is full of frames needed
        /// sooner; evicts the least useful frame to make room.
        mutating func insert(_ image: Image, at index: Int, capacity: Int) {
            guard frames[index] == nil else { return }
            if frames.count >= capacity {
                let worst = frames.keys.max { a, b in
                    let (rankA, rankB) = (rank(a), rank(b))
                    return rankA != rankB ? rankA < rankB : lastUse[a, default: 0] > lastUse[b, default: 0]
                }
                // A frame no one needs replaces only another such frame (the one used longest ago).
                guard let worst, rank(index) < rank(worst) || (rank(index) == .max && rank(worst) == .max) else { return }
                remove(worst)
            }
            frames[index] = image
            touch(index)
            statistics.bufferedFrames = frames.count
            statistics.bufferedBytes += image.memoryCost
            statistics.peakBufferedFrames = max(statistics.peakBufferedFrames, frames.count)
            statistics.peakBufferedBytes = max(statistics.peakBufferedBytes, statistics.bufferedBytes)
        }

        mutating func remove(_ index: Int) {
            guard let image = frames.removeValue(forKey: index) else { return }
            lastUse[index] = nil
            statistics.bufferedFrames = frames.count
            statistics.bufferedBytes -= image.memoryCost
        }

        mutating func touch(_ index: Int) {
            clock += 1
            lastUse[index] = clock
        }
    }

    /// Where the frames come from.
    public let provider: any AnimatedImageProvider
    /// The most frames held at once (at least 1).
    public let capacity: Int
    private let buffer = Locked(Buffer())

    /// A buffer of at most `capacity` frames of `provider`; a capacity below 1 is taken as 1.
    /// The player shows one frame and prefetches `capacity - 1`: 2 is the least that
    /// decodes ahead.
    public init(_ provider: any AnimatedImageProvider, capacity: Int = 8) {
        self.provider = provider
        self.capacity = max(1, capacity)
    }

    /// The number of frames of the animation.
    public var frameCount: Int { provider.frameCount }

    /// What the buffer holds and has done so far.
    public var statistics: Statistics { buffer.withLock { $0.statistics } }

    /// The indices of the frames held now, in ascending order.
    public var bufferedIndices: [Int] { buffer.withLock { $0.frames.keys.sorted() } }

    /// Frame `index`: the one held, else decoded by the provider and kept. It becomes the
    /// current frame, the last to be evicted.
    ///
    /// - Throws: ``ImageError/badImageData(_:)`` when `index` is outside `0..<frameCount`
    ///   or the provider cannot decode the frame.
    public func frame(at index: Int) throws(ImageError) -> Image {
        try checkIndex(index)
        let held = buffer.withLock { buffer -> Image? in
            buffer.current = index
            guard let image = buffer.frames[index] else { return nil }
            buffer.touch(index)
            buffer.statistics.hits += 1
            return image
        }
        if let held { return held }
        let image = try provider.frame(at: index)
        buffer.withLock {
            $0.statistics.decodedFrames += 1
            $0.insert(image, at: index, capacity: capacity)
        }
        return image
    }

    /// Says that `upcoming` are the frames to show next, in order, and decodes those not
    /// held, as many as fit beside the current frame (`capacity - 1`). Frames needed
    /// sooner are never evicted for frames needed later.
    ///
    /// - Throws: ``ImageError/badImageData(_:)`` when an index is outside
    ///   `0..<frameCount` or the provider cannot decode a frame; the frames decoded before
    ///   it are kept.
    public func prefetch(_ upcoming: [Int]) throws(ImageError) {
        for index in upcoming { try checkIndex(index) }
        var wanted: [Int] = []
        for index in upcoming where !wanted.contains(index) && wanted.count < capacity - 1 { wanted.append(index) }
        let planned = wanted
        buffer.withLock { $0.upcoming = planned }
        for index in planned {
            let held = buffer.withLock { $0.frames[index] != nil }
            if held { continue }
            let image = try provider.frame(at: index)
            buffer.withLock {
                $0.statistics.decodedFrames += 1
                $0.insert(image, at: index, capacity: capacity)
            }
        }
    }

    /// Drops every frame held (the counts stay).
    public func removeAll() {
        buffer.withLock { buffer in
            for index in Array(buffer.frames.keys) { buffer.remove(index) }
            buffer.upcoming = []
            buffer.current = nil
        }
    }

    private func checkIndex(_ index: Int) throws(ImageError) {
        guard (0..<provider.frameCount).contains(index) else {
            throw .badImageData("frame \(index) is outside 0..<\(provider.frameCount) of the animation")
        }
    }
}
