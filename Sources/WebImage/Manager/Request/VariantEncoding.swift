/// How ``ImageManager/loadVariant(_:options:context:)`` encodes a variant: the format and
/// the encoder's settings. Part of the variant's cache key (``key``).
public struct VariantEncoding: Sendable, Hashable {
    /// The output format, fixed or chosen from the source. Default: the source's format
    /// where possible (``VariantFormat/matchingSource``).
    public var format: VariantFormat
    /// Encoder quality 1…100 for lossy formats. Default 80.
    public var quality: Int
    /// Choose the quality per image instead (lossy still images; ``QualitySearch``):
    /// ``quality`` and ``formatQuality`` then apply to animations only. Default `nil`.
    public var autoQuality: AutoQuality?
    /// Per-format qualities that take the place of ``quality`` for those formats.
    public var formatQuality: [ImageFormat: Int]
    /// The largest encoded size in bytes: a lossy encode lowers the quality until it fits,
    /// or fails with ``ImageError/fileSizeLimitUnreachable(maxBytes:smallest:)``.
    public var maxFileSize: Int?
    /// Leave metadata (EXIF, ICC, XMP) out. Default `true`.
    public var stripMetadata: Bool
    /// The colour an image with alpha is flattened onto for a format without alpha (JPEG).
    /// Default white.
    public var backgroundColor: ImageEncodeOptions.Color
    /// Lossless WebP or AVIF.
    public var lossless: Bool
    /// Progressive JPEG, interlaced PNG.
    public var progressive: Bool
    /// Keep the ICC profile (`true`), convert to sRGB and drop it (`false`), or treat it as
    /// the rest of the metadata (`nil`, the default): ``ImageEncodeOptions/keepColorProfile``.
    public var keepColorProfile: Bool?
    /// When stripping metadata, keep the EXIF Copyright and Artist tags.
    public var keepCopyright: Bool

    /// Creates encoding settings.
    public init(
        format: VariantFormat = .matchingSource,
        quality: Int = 80,
        autoQuality: AutoQuality? = nil,
        formatQuality: [ImageFormat: Int] = [:],
        maxFileSize: Int? = nil,
        stripMetadata: Bool = true,
        backgroundColor: ImageEncodeOptions.Color = .white,
        lossless: Bool = false,
        progressive: Bool = false,
        keepColorProfile: Bool? = nil,
        keepCopyright: Bool = false
    ) {
        self.format = format
        self.quality = quality
        self.autoQuality = autoQuality
        self.formatQuality = formatQuality
        self.maxFileSize = maxFileSize
        self.stripMetadata = stripMetadata
        self.backgroundColor = backgroundColor
        self.lossless = lossless
        self.progressive = progressive
        self.keepColorProfile = keepColorProfile
        self.keepCopyright = keepCopyright
    }

    /// The encoder options for the resolved `format`.
    public func encodeOptions(for format: ImageFormat) -> ImageEncodeOptions {
        ImageEncodeOptions(
            format: format, quality: formatQuality[format] ?? quality, maxFileSize: maxFileSize,
            backgroundColor: backgroundColor, stripMetadata: stripMetadata, progressive: progressive, lossless: lossless,
            keepColorProfile: keepColorProfile, keepCopyright: keepCopyright
        )
    }

    /// A stable name of these settings for cache keys, e.g. `f:webp,q:80,sm`.
    public var key: String {
        var parts = ["f:" + format.key, "q:\(quality)"]
        if let autoQuality { parts.append("q:" + autoQuality.key) }
        for (format, quality) in formatQuality.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            parts.append("q\(format.fileExtension):\(quality)")
        }
        if let maxFileSize { parts.append("mb:\(maxFileSize)") }
        if !stripMetadata { parts.append("keep-meta") }
        if backgroundColor != .white {
            parts.append("bg:\(backgroundColor.red).\(backgroundColor.green).\(backgroundColor.blue)")
        }
        if lossless { parts.append("lossless") }
        if progressive { parts.append("progressive") }
        if let keepColorProfile { parts.append(keepColorProfile ? "keep-icc" : "srgb") }
        if keepCopyright { parts.append("keep-copyright") }
        return parts.joined(separator: ",")
    }
}
