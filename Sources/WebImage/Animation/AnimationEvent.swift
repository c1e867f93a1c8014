/// One frame an ``AnimatedImagePlayer`` shows.
public struct AnimationFrame: Sendable {
    /// The frame's index in the animation.
    public let index: Int
    /// The frame's pixels.
    public let image: Image
    /// How long the frame is shown at playback rate 1, in seconds.
    public let duration: Double
    /// The loop it belongs to: 0 for the first pass through the animation.
    public let loop: Int
}

/// What an ``AnimatedImagePlayer`` reports in ``AnimatedImagePlayer/events``.
public enum AnimationEvent: Sendable {
    /// A frame is shown now (SDWebImage's `animationFrameHandler`).
    case frame(AnimationFrame)
    /// A loop ended; the value is the number of loops completed (`animationLoopHandler`).
    case loopCompleted(Int)
    /// The player played its loop count and stopped, on the last frame.
    case finished
    /// A frame could not be decoded; the player stopped.
    case failed(ImageError)
}
