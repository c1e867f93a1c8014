import Foundation

/// An animation whose frames are decoded from its encoded bytes when asked for:
/// SDWebImage's `SDAnimatedImage`.
///
/// Making one reads the header only — frame count, frame size, each frame's duration and
/// the loop count — so it costs the encoded bytes and no pixels, whatever the number of
/// frames. ``frame(at:)`` decodes one frame (GIF frames composited over the earlier ones
/// as the file's disposal says, exactly as a whole decode shows them). Reading the frames
/// in order costs one frame's decode each; going back (a new loop) starts the decoder
/// again from the first frame.
///
/// Keep decoded frames with ``AnimatedImageFrames`` (a bounded buffer) and play them with
/// ``AnimatedImagePlayer``:
///
/// ```swift
/// let animation = try AnimatedImage(data: gifData)
/// let frames = AnimatedImageFrames(animation, capacity: 8)
/// let player = AnimatedImagePlayer(frames: frames)
/// player.play()
/// for await event in player.events { if case .frame(let frame) = event { show(frame.image) } }
/// ```
///
/// GIF and WebP animate; any other format libvips reads gives one frame. Frames are not
/// kept here: each ``frame(at:)`` decodes.
public final class AnimatedImage: AnimatedImageProvider {
    /// The container format of the bytes.
    public let format: ImageFormat
    /// The size of one frame, in pixels.
    public let pixelSize: PixelSize
    /// The number of frames in the file (1 for a still image).
    public let frameCount: Int
    /// How many times the animation plays; 0 means forever.
    public let loopCount: Int
    /// How long each frame is shown, in seconds; empty for a still image. Delays under
    /// 11 ms are shown at 100 ms, as browsers and ``VipsCoder`` do.
    public let frameDurations: [Double]
    private let reader: VipsFrameReader

    /// Reads the header of `data`, checking `limits` before any pixel is decoded.
    ///
    /// The frames are never all decoded at once, so the pixel limit applies to one frame:
    /// `limits.maxFramePixels` when set, else `limits.maxPixels`. An animation of more than
    /// `limits.maxFrames` frames is read as its first `limits.maxFrames`.
    ///
    /// - Parameters:
    ///   - data: The encoded image (GIF, WebP, or any format ``VipsCoder`` reads).
    ///   - limits: Checked from the header.
    ///   - strictness: How strict each frame's decode is about damaged input.
    /// - Throws: ``ImageError/badImageData(_:)`` for bytes libvips cannot read (empty,
    ///   unknown, truncated header); ``ImageError/untrustedFormat(_:)`` for a format whose
    ///   loader is blocked; ``ImageError/imageTooLarge(pixels:limit:)`` over the limits.
    public init(data: Data, limits: ImageLimits = .default, strictness: ImageDecodeOptions.Strictness = .error) throws(ImageError) {
        try Vips.start()
        let format = try VipsCoder.checkedFormat(of: data)
        let reader = try VipsFrameReader(data: data, format: format, limits: limits, strictness: strictness)
        self.reader = reader
        self.format = format
        pixelSize = reader.frameSize
        frameCount = reader.frameCount
        let animated = reader.frameCount > 1
        loopCount = animated ? reader.loopCount : 0
        frameDurations = animated ? VipsDecode.durations(reader.delays, frames: reader.frameCount) : []
    }

    /// Frame `index`, decoded from the bytes, as a still image in 8-bit sRGB (or grey):
    /// the pixels a whole decode by ``VipsCoder`` has for that frame.
    ///
    /// Safe to call from several threads; one frame of an animation decodes at a time.
    ///
    /// - Throws: ``ImageError/badImageData(_:)`` when `index` is outside
    ///   `0..<frameCount` or the frame's data is damaged.
    public func frame(at index: Int) throws(ImageError) -> Image {
        try reader.frame(at: index)
    }
}
