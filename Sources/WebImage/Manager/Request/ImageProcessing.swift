/// What an ``ImageRequest`` does to the decoded source before handing it out (or encoding
/// it): the decode's size and frames, then a transformer.
///
/// A request without processing (``isIdentity``) hands out the source as decoded and is
/// cached under the source's key; a thumbnail size or a transformer makes the result a
/// variant of the source, cached under a key of its own (``CacheKey``).
public struct ImageProcessing: Sendable {
    /// Decode within this size (shrink-on-load, so the full image is never decoded where
    /// the format allows); `nil` decodes full size, or as small as ``transformer`` allows.
    public var thumbnailPixelSize: PixelSize?
    /// With a thumbnail size: keep the aspect ratio (default) or stretch to the size.
    public var preserveAspectRatio: Bool
    /// What is done to the decoded image (a ``TransformerPipeline`` for several steps).
    /// Without a thumbnail size, the source is decoded no larger than the transformer needs
    /// (``ImageTransformer/shrinkOnLoadSize(forSourceSize:)``).
    public var transformer: (any ImageTransformer)?
    /// Whether an animation is transformed frame by frame (`true`, the default) or handed
    /// out untransformed (SDWebImage's default, without `transformAnimatedImage`).
    public var transformsAnimations: Bool
    /// Decode only the first frame of an animation.
    public var firstFrameOnly: Bool
    /// Decode at a scale where the pixels take at most this many bytes (SDWebImage's
    /// `scaleDownLargeImages`); `nil` for no such limit.
    public var scaleDownLimitBytes: Int?
    /// Read a HEIC, HEIF or AVIF source from the thumbnail embedded in it, when it has one.
    /// Its size is not known before the decode, so it cannot be combined with
    /// ``thumbnailPixelSize``, and no shrink-on-load is asked for.
    public var preferEmbeddedThumbnail: Bool
    /// The decoded image's ``Image/scale`` (SDWebImage's `SDWebImageContextImageScaleFactor`);
    /// `nil` takes it from the `@2x` / `@3x` in the source's cache key
    /// (``ImageScale/factor(forKey:)``). Only the size in points depends on it: it changes
    /// neither the pixels nor the cache key, and applies to ``ImageOutput/image`` only.
    public var scaleFactor: Double?
    /// How far a JPEG source shrinks in libjpeg on its way to a smaller decode
    /// (``ImageDecodeOptions/jpegShrink``). Default ``ImageDecodeOptions/JPEGShrink/leavingResample``.
    public var jpegShrink: ImageDecodeOptions.JPEGShrink = .leavingResample

    /// Creates processing; by default none: the source decoded full size, every frame.
    public init(
        thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool = true,
        transformer: (any ImageTransformer)? = nil,
        transformsAnimations: Bool = true,
        firstFrameOnly: Bool = false,
        scaleDownLimitBytes: Int? = nil,
        preferEmbeddedThumbnail: Bool = false,
        scaleFactor: Double? = nil
    ) {
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.transformer = transformer
        self.transformsAnimations = transformsAnimations
        self.firstFrameOnly = firstFrameOnly
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.preferEmbeddedThumbnail = preferEmbeddedThumbnail
        self.scaleFactor = scaleFactor
    }

    /// No processing: the source decoded full size, every frame.
    public static let none = ImageProcessing()

    /// Whether the result is the source itself, under the source's key: no thumbnail size
    /// and no transformer.
    public var isIdentity: Bool { thumbnailPixelSize == nil && transformer == nil }

    /// Whether any field differs from ``none``.
    var isDefault: Bool {
        isIdentity && transformsAnimations && !firstFrameOnly && scaleDownLimitBytes == nil && !preferEmbeddedThumbnail
            && preserveAspectRatio && scaleFactor == nil && jpegShrink == .leavingResample
    }
}
