/// Something that can hand out the frames of an animation one at a time, with their
/// timing: SDWebImage's `SDAnimatedImageProvider`.
///
/// ``AnimatedImage`` decodes each frame from the encoded bytes when it is asked for;
/// ``Image`` is a provider too, holding every frame decoded. ``AnimatedImageFrames`` keeps
/// a bounded number of a provider's frames, and ``AnimatedImagePlayer`` plays them.
public protocol AnimatedImageProvider: Sendable {
    /// The container format the frames come from.
    var format: ImageFormat { get }
    /// The size of one frame, in pixels.
    var pixelSize: PixelSize { get }
    /// The number of frames (`animatedImageFrameCount`); 1 for a still image.
    var frameCount: Int { get }
    /// How many times the animation plays (`animatedImageLoopCount`); 0 means forever.
    var loopCount: Int { get }
    /// How long each frame is shown, in seconds (`animatedImageDurationAtIndex:`); empty
    /// for a still image.
    var frameDurations: [Double] { get }
    /// Frame `index` as a still image (`animatedImageFrameAtIndex:`).
    ///
    /// - Throws: ``ImageError/badImageData(_:)`` when `index` is outside `0..<frameCount`
    ///   or the frame cannot be decoded.
    func frame(at index: Int) throws(ImageError) -> Image
}

extension AnimatedImageProvider {
    /// How long frame `index` is shown, in seconds: 0 for a still image or an index
    /// outside the animation.
    public func frameDuration(at index: Int) -> Double {
        frameDurations.indices.contains(index) ? frameDurations[index] : 0
    }

    /// How long one loop of the animation lasts, in seconds.
    public var totalDuration: Double { frameDurations.reduce(0, +) }
}

/// A decoded image is a provider whose frames are all in memory already.
extension Image: AnimatedImageProvider {}
