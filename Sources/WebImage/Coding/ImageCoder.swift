import Foundation

/// Turns bytes into ``Image`` values and back.
///
/// ``VipsCoder`` implements it on libvips for every format libvips reads; ``QOICoder``
/// reads and writes QOI in Swift; ``ImageCodersManager`` hands each call to one of several
/// coders, the one added last first. Calls block and use CPU: run them off event loops.
public protocol ImageCoder: Sendable {
    /// Whether this coder can decode `data` (judged from its first bytes).
    func canDecode(_ data: Data) -> Bool
    /// Reads the header of `data` and checks `limits` (all frames counted), without
    /// decoding any pixel.
    func inspect(_ data: Data, limits: ImageLimits) throws(ImageError) -> ImageInfo
    /// Decodes `data`, checking the limits in `options` from the header first.
    func decode(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image
    /// Reads the header of `data`, then decodes with the options `plan` chooses from the
    /// header's facts — e.g. a thumbnail size that depends on the source's size, or the
    /// first frame only for an output format that cannot animate. The limits checked are
    /// the planned options' (frames counted as the plan decodes them), before any pixel is
    /// decoded. A coder that can reads the header once for both; the default
    /// implementation calls ``inspect(_:limits:)`` without limits, then
    /// ``decode(_:options:)``.
    func decode(
        _ data: Data, planning plan: (ImageInfo) throws(ImageError) -> ImageDecodeOptions
    ) throws(ImageError) -> (info: ImageInfo, image: Image)
    /// Decodes the first part of an image still downloading, for a progressive preview.
    /// Returns `nil` while too few bytes have arrived to show anything.
    func decodePartial(_ data: Data, options: ImageDecodeOptions) throws(ImageError) -> Image?
    /// Whether this coder can write `format`.
    func canEncode(_ format: ImageFormat) -> Bool
    /// Encodes `image` as `options.format`.
    func encode(_ image: Image, options: ImageEncodeOptions) throws(ImageError) -> Data
    /// Reads `data` as an animation to play frame by frame (SDWebImage's
    /// `SDAnimatedImageCoder`): a coder that can decode frames on demand returns an
    /// ``AnimatedImage``, which reads only the header here; the default implementation
    /// decodes every frame with ``decode(_:options:)`` and returns the ``Image``.
    func animatedImage(
        _ data: Data, limits: ImageLimits, strictness: ImageDecodeOptions.Strictness
    ) throws(ImageError) -> any AnimatedImageProvider
}

extension ImageCoder {
    /// Decodes every frame of `data` at once; the limits are checked as
    /// ``decode(_:options:)`` checks them.
    public func animatedImage(
        _ data: Data, limits: ImageLimits, strictness: ImageDecodeOptions.Strictness
    ) throws(ImageError) -> any AnimatedImageProvider {
        try decode(data, options: ImageDecodeOptions(limits: limits, strictness: strictness))
    }

    /// Inspects `data` (no limits: the decode checks the planned ones), asks `plan` for
    /// the decode options, and decodes.
    public func decode(
        _ data: Data, planning plan: (ImageInfo) throws(ImageError) -> ImageDecodeOptions
    ) throws(ImageError) -> (info: ImageInfo, image: Image) {
        let info = try inspect(data, limits: ImageLimits(maxPixels: .max, maxFrames: .max))
        return (info, try decode(data, options: plan(info)))
    }
}
