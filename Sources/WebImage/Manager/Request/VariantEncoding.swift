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
    /// Progressive JPEG: ``ImageEncodeOptions/progressive``.
    public var progressive: Bool
    /// The colour profile the variant carries (``ImageEncodeOptions/colorProfile``). Default
    /// ``OutputColorProfile/sRGB``. With ``OutputColorProfile/source`` the source is decoded
    /// keeping its profile (``ImageDecodeOptions/keepsColorProfile``), so the transformers
    /// work on its own pixels and the variant carries its profile.
    public var colorProfile: OutputColorProfile
    /// When stripping metadata, keep the EXIF Copyright and Artist tags.
    public var keepCopyright: Bool
    /// Interlaced (Adam7) PNG: ``ImageEncodeOptions/pngInterlaced``.
    public var pngInterlaced: Bool
    /// PNG as a palette image of at most about this many colours, 2…256
    /// (``ImageEncodeOptions/pngPaletteColors``); `nil`, the default: full colour.
    public var pngPaletteColors: Int?
    /// libwebp's effort, 0…6 (``ImageEncodeOptions/webpEffort``). Default 4.
    public var webpEffort: Int
    /// The kind of picture lossy WebP is tuned for (``ImageEncodeOptions/webpPreset``).
    public var webpPreset: WebPPreset
    /// The AV1 encoder's effort for AVIF, 0…9 (``ImageEncodeOptions/avifEffort``). Default 4.
    public var avifEffort: Int
    /// libjxl's effort for JPEG XL, 1…9 (``ImageEncodeOptions/jxlEffort``). Default 7.
    public var jxlEffort: Int

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
        colorProfile: OutputColorProfile = .sRGB,
        keepCopyright: Bool = false,
        pngInterlaced: Bool = false,
        pngPaletteColors: Int? = nil,
        webpEffort: Int = 4,
        webpPreset: WebPPreset = .default,
        avifEffort: Int = 4,
        jxlEffort: Int = 7
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
        self.colorProfile = colorProfile
        self.keepCopyright = keepCopyright
        self.pngInterlaced = pngInterlaced
        self.pngPaletteColors = pngPaletteColors
        self.webpEffort = webpEffort
        self.webpPreset = webpPreset
        self.avifEffort = avifEffort
        self.jxlEffort = jxlEffort
    }

    /// The encoder options for the resolved `format`.
    public func encodeOptions(for format: ImageFormat) -> ImageEncodeOptions {
        ImageEncodeOptions(
            format: format, quality: formatQuality[format] ?? quality, maxFileSize: maxFileSize,
            backgroundColor: backgroundColor, stripMetadata: stripMetadata, progressive: progressive, lossless: lossless,
            colorProfile: colorProfile, keepCopyright: keepCopyright,
            pngInterlaced: pngInterlaced, pngPaletteColors: pngPaletteColors, webpEffort: webpEffort, webpPreset: webpPreset,
            avifEffort: avifEffort, jxlEffort: jxlEffort
        )
    }

    /// Checks the encoder settings that have a range; throws
    /// ``ImageError/invalidRequest(field:reason:)`` naming the first outside it, e.g.
    /// `VariantEncoding.webpEffort`.
    public func validate() throws(ImageError) {
        if let problem = ImageEncodeOptions.outOfRange(pngPaletteColors: pngPaletteColors, webpEffort: webpEffort, avifEffort: avifEffort, jxlEffort: jxlEffort) {
            throw .invalidRequest(field: "VariantEncoding." + problem.field, reason: problem.reason)
        }
    }

    /// The settings a key leaves out where they are unchanged.
    private static let defaults = VariantEncoding()

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
        if colorProfile != .sRGB { parts.append("color:" + colorProfile.key) }
        if keepCopyright { parts.append("keep-copyright") }
        // The encoder settings, each only where it differs from the default.
        let defaults = Self.defaults
        if pngInterlaced { parts.append("png-interlaced") }
        if let pngPaletteColors { parts.append("png-palette:\(pngPaletteColors)") }
        if webpEffort != defaults.webpEffort { parts.append("webp-effort:\(webpEffort)") }
        if webpPreset != defaults.webpPreset { parts.append("webp-preset:" + webpPreset.rawValue) }
        if avifEffort != defaults.avifEffort { parts.append("avif-effort:\(avifEffort)") }
        if jxlEffort != defaults.jxlEffort { parts.append("jxl-effort:\(jxlEffort)") }
        return parts.joined(separator: ",")
    }
}
