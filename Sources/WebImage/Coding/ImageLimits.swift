/// Limits checked from an image's header, before any pixel is decoded.
///
/// They keep a decompression bomb — a few kilobytes declaring billions of pixels — from
/// taking the process's memory.
public struct ImageLimits: Sendable, Hashable {
    /// The most pixels an image may declare, counting every frame (width × height × frames).
    public var maxPixels: Int
    /// The most frames of an animation decoded: one with more is decoded as its first
    /// `maxFrames` frames (at 1, a still image of the first frame), as imgproxy's
    /// `max_animation_frames` does. A source is refused for its frames only by the pixel
    /// limits, which count the frames decoded.
    public var maxFrames: Int
    /// The most pixels one frame of an animated image may have; when set, an animation is
    /// checked frame by frame against it instead of against ``maxPixels`` for all its
    /// frames (a still image is still checked against ``maxPixels``). Default `nil`.
    public var maxFramePixels: Int?

    /// Creates limits; the defaults are 50 megapixels and the first 1,000 frames.
    public init(maxPixels: Int = 50_000_000, maxFrames: Int = 1_000, maxFramePixels: Int? = nil) {
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.maxFramePixels = maxFramePixels
    }

    /// 50 megapixels (frames counted) and the first 1,000 frames.
    public static let `default` = ImageLimits()
}

extension ImageLimits {
    /// How many of an image's `pages` a decode reads: all, up to ``maxFrames`` (at least one).
    func framesDecoded(of pages: Int) -> Int { max(1, min(pages, maxFrames)) }

    /// Checks an image of `frames` frames decoded (``framesDecoded(of:)``) of `frameSize`
    /// pixels each: an animation, when ``maxFramePixels`` is set, frame by frame against
    /// it; otherwise the pixels of the frames decoded together (`framesDecodedTogether`,
    /// every frame by default; 1 for a reader that holds one frame at a time) against
    /// ``maxPixels``. The one rule every coder and the memory budget apply, so that what
    /// one refuses the others refuse too.
    func check(frames: Int, frameSize: PixelSize, framesDecodedTogether: Int? = nil) throws(ImageError) {
        let framePixels = frameSize.width.multipliedReportingOverflow(by: frameSize.height)
        if frames > 1, let maxFramePixels {
            if framePixels.overflow || framePixels.partialValue > maxFramePixels {
                throw .imageTooLarge(pixels: framePixels.overflow ? .max : framePixels.partialValue, limit: maxFramePixels)
            }
            return
        }
        let pixels = framePixels.partialValue.multipliedReportingOverflow(by: framesDecodedTogether ?? frames)
        if framePixels.overflow || pixels.overflow || pixels.partialValue > maxPixels {
            throw .imageTooLarge(pixels: framePixels.overflow || pixels.overflow ? .max : pixels.partialValue, limit: maxPixels)
        }
    }
}
