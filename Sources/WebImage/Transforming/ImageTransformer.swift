/// Turns one decoded image into another (resize, crop, blur…): SDImageTransformer.
///
/// A transformer's ``key`` names its output: two transformers with the same key must
/// produce the same image from the same input, because the key becomes part of the
/// cache key of the transformed image (see ``CacheKey/transformedKey(_:transformerKey:)``).
/// Transformers run on the coding pool, never on the caller's thread.
public protocol ImageTransformer: Sendable {
    /// A stable, distinct name of this transformer and its parameters, e.g.
    /// `resize-fill-400x300-ce` (the built-in transformers follow the format described at
    /// each of them). Safe in a file name: no `/`, no whitespace.
    var key: String { get }

    /// Returns the transformed image. An animated image is transformed frame by frame
    /// (all frames keep their durations and loop count).
    func transform(_ image: Image) throws(ImageError) -> Image

    /// The exact size a still image of `sourceSize` (upright) may be decoded at, with
    /// libvips' shrink-on-load, for ``transform(_:)`` to give from it the same result as
    /// from the full-size image; `nil` when the transform needs the full size. The
    /// manager asks this when a request has a transformer and no
    /// ``ImageContext/thumbnailPixelSize``. The default is `nil`.
    func shrinkOnLoadSize(forSourceSize sourceSize: PixelSize) -> PixelSize?

    /// Whether the decode to ``shrinkOnLoadSize(forSourceSize:)`` resamples in linear light
    /// (``ImageDecodeOptions/resizesInLinearLight``), as the transformer's own resize does.
    var resizesInLinearLight: Bool { get }

    /// The size of what ``transform(_:)`` makes from a still image of `inputSize`; `nil`
    /// when it cannot be told before the transform runs. The manager's ``MemoryBudget``
    /// counts it from the source's header, before anything is decoded. The default is
    /// `nil`: the input's own size is counted.
    func outputSize(forInputSize inputSize: PixelSize) -> PixelSize?

    /// The largest image ``transform(_:)`` makes on the way from a still image of
    /// `inputSize`: its output, or a larger step (an enlargement before its crop to a box,
    /// a canvas extended and then cut). The default is ``outputSize(forInputSize:)``, or the
    /// input's size when that is `nil`.
    func largestSize(forInputSize inputSize: PixelSize) -> PixelSize
}

extension ImageTransformer {
    /// `nil`: decode at full size.
    public func shrinkOnLoadSize(forSourceSize sourceSize: PixelSize) -> PixelSize? { nil }

    /// `false`: a shrink-on-load decode resamples sRGB's values.
    public var resizesInLinearLight: Bool { false }

    /// `nil`: not known before the transform runs.
    public func outputSize(forInputSize inputSize: PixelSize) -> PixelSize? { nil }

    /// ``outputSize(forInputSize:)``, else `inputSize`.
    public func largestSize(forInputSize inputSize: PixelSize) -> PixelSize {
        outputSize(forInputSize: inputSize) ?? inputSize
    }
}

