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
