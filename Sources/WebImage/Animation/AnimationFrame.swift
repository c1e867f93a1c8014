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
