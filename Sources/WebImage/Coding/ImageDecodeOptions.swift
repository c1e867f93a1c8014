/// How ``ImageCoder/decode(_:options:)`` turns bytes into an ``Image``.
public struct ImageDecodeOptions: Sendable, Hashable {
    /// How strict the decoder is about damaged input.
    public enum Strictness: Sendable, Hashable {
        /// Decode whatever can be read; missing parts come out grey. Progressive previews use it.
        case lenient
        /// Fail on a truncated file, accept other recoverable damage.
        case truncated
        /// Fail on truncation and on any error the codec reports (the default).
        case error
        /// Fail even on warnings.
        case warning

        var vipsFailOn: Int32 {
            switch self {
            case .lenient: 0
            case .truncated: 1
            case .error: 2
            case .warning: 3
            }
        }
    }

    /// How far a JPEG decode to a smaller size shrinks in libjpeg (its DCT scaling by 2, 4
    /// or 8) before the final resample.
    public enum JPEGShrink: String, Sendable, Hashable, CaseIterable {
        /// libvips' thumbnail's rule: the largest shrink that leaves a factor of two or more
        /// for the resample, which then sees at least four pixels for each one it makes.
        case leavingResample = "leave-resample"
        /// imgproxy's and sharp's rule: the largest shrink that does not go below the
        /// target. The resample starts from a quarter of the pixels: on a corpus of photos
        /// made 300 px wide, 0.90× the CPU an image, at 0.6 dB less PSNR against a full-size
        /// decode.
        case toTarget = "to-target"
    }

    /// Decode as a thumbnail no larger than this size, using shrink-on-load where the
    /// format allows (JPEG, WebP), so the full image is never decoded. `nil` decodes full size.
    public var thumbnailPixelSize: PixelSize?
    /// With a thumbnail size: keep the aspect ratio and fit inside the size (`true`), or
    /// produce exactly that size (`false`).
    public var preserveAspectRatio: Bool
    /// Decode at a scale where the pixels (width × height × 4 × frames) take at most this
    /// many bytes. `nil` means no limit.
    public var scaleDownLimitBytes: Int?
    /// Decode only the first frame of an animation.
    public var firstFrameOnly: Bool
    /// Limits checked from the header before any pixel is decoded.
    public var limits: ImageLimits
    /// How strict to be about damaged input.
    public var strictness: Strictness
    /// Read a HEIC, HEIF or AVIF image from the thumbnail embedded in it, when it has one,
    /// instead of the main image. Default `false`.
    public var preferEmbeddedThumbnail = false
    /// Resample to a thumbnail size in linear light (``ResizeTransformer/linearLight``)
    /// instead of on sRGB's gamma-encoded values. Default `false`.
    public var resizesInLinearLight = false
    /// How far a JPEG shrinks in libjpeg on the way to a smaller size. Default
    /// ``JPEGShrink/leavingResample``.
    public var jpegShrink: JPEGShrink = .leavingResample
    /// Keep the pixels of an RGB or grey image in its colour profile's space, with the
    /// profile attached (``Image/colorProfile``), instead of converting them to sRGB with it.
    /// Default `false`: an image with a profile that is not sRGB is converted, once it has
    /// its decoded size, and leaves the decode in sRGB without a profile, so transformers
    /// and encoders see sRGB pixels. A CMYK image is converted either way (with its own
    /// profile, or libvips' CMYK profile when it has none).
    public var keepsColorProfile = false
    /// Make the frames of an animation decoded at full size when they are read, instead of
    /// all of them into memory (``FrameStrip``): for an image that is encoded once and let
    /// go, as an encoded variant is. ``VipsCoder`` honours it.
    var framesOnDemand = false

    /// Creates decode options; by default: full size, all frames, default limits, strict.
    public init(
        thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool = true,
        scaleDownLimitBytes: Int? = nil,
        firstFrameOnly: Bool = false,
        limits: ImageLimits = .default,
        strictness: Strictness = .error
    ) {
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.firstFrameOnly = firstFrameOnly
        self.limits = limits
        self.strictness = strictness
    }
}
