/// How ``ImageManager/loadVariant(_:options:context:)`` encodes a variant: the format and
/// the encoder's settings. Part of the variant's cache key (``key``).
public struct VariantEncoding: Sendable, Hashable {
    /// The output format, fixed or chosen from the source. Default: the source's format
    /// where possible (``VariantFormat/matchingSource``).
    public var format: VariantFormat
    /// Choose the quality per image instead (lossy still images; ``QualitySearch``):
    /// the quality of ``options`` and ``formatQuality`` then apply to animations only.
    /// Default `nil`.
    public var autoQuality: AutoQuality?
    /// Per-format qualities that take the place of the quality of ``options`` for those
    /// formats.
    public var formatQuality: [ImageFormat: Int]
    /// The encoder's settings: quality, size limit, metadata, colour profile and each
    /// format's own. Their `format` is not read: each image is written in the format
    /// ``format`` resolves to for it (``encodeOptions(for:)``). Default: ``defaultOptions``
    /// (quality 80, metadata stripped, sRGB).
    ///
    /// With ``OutputColorProfile/source`` as their colour profile the source is decoded
    /// keeping its profile (``ImageDecodeOptions/keepsColorProfile``), so the transformers
    /// work on its own pixels and the variant carries its profile.
    public var options: ImageEncodeOptions
    /// What a variant of an SVG source is: rendered and encoded (``SVGSourceHandling/rasterize``,
    /// the default), or the SVG itself, sanitised or not (``SVGSourceHandling/serve(sanitizer:)``).
    public var svgSources: SVGSourceHandling

    /// Creates encoding settings.
    ///
    /// - Parameters:
    ///   - format: The output format, fixed or chosen from the source.
    ///   - quality: The quality of `options`, when given (1…100): the one setting most
    ///     requests change.
    ///   - autoQuality: Choose the quality per image instead.
    ///   - formatQuality: Per-format qualities.
    ///   - options: The encoder's settings; their `format` is not read.
    ///   - svgSources: What a variant of an SVG source is.
    public init(
        format: VariantFormat = .matchingSource,
        quality: Int? = nil,
        autoQuality: AutoQuality? = nil,
        formatQuality: [ImageFormat: Int] = [:],
        options: ImageEncodeOptions = VariantEncoding.defaultOptions,
        svgSources: SVGSourceHandling = .rasterize
    ) {
        self.format = format
        self.autoQuality = autoQuality
        self.formatQuality = formatQuality
        self.options = options
        self.svgSources = svgSources
        if let quality { self.options.quality = quality }
    }

    /// The encoder options for the resolved `format`: ``options`` with that format, and
    /// its quality from ``formatQuality`` where that has one.
    public func encodeOptions(for format: ImageFormat) -> ImageEncodeOptions {
        var resolved = options
        resolved.format = format
        if let quality = formatQuality[format] { resolved.quality = quality }
        return resolved
    }

    /// Checks the encoder settings that have a range; throws
    /// ``ImageError/invalidRequest(field:reason:)`` naming the first outside it, e.g.
    /// `VariantEncoding.options.webpEffort`.
    public func validate() throws(ImageError) {
        if let problem = options.outOfRange() {
            throw .invalidRequest(field: "VariantEncoding.options." + problem.field, reason: problem.reason)
        }
    }

    /// The encoder settings a variant starts from, ``ImageEncodeOptions``' defaults; a key
    /// leaves out those left unchanged. Their format is a placeholder, never read.
    public static let defaultOptions = ImageEncodeOptions(format: .jpeg)

    /// A stable name of these settings for cache keys, e.g. `f:webp,q:80,sm`.
    public var key: String {
        var parts = ["f:" + format.key, "q:\(options.quality)"]
        if let autoQuality { parts.append("q:" + autoQuality.key) }
        for (format, quality) in formatQuality.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            parts.append("q\(format.fileExtension):\(quality)")
        }
        let defaults = Self.defaultOptions
        if let maxFileSize = options.maxFileSize { parts.append("mb:\(maxFileSize)") }
        if !options.stripMetadata { parts.append("keep-meta") }
        let background = options.backgroundColor
        if background != .white { parts.append("bg:\(background.red).\(background.green).\(background.blue)") }
        if options.lossless { parts.append("lossless") }
        if options.progressive { parts.append("progressive") }
        if options.colorProfile != .sRGB { parts.append("color:" + options.colorProfile.key) }
        if options.keepCopyright { parts.append("keep-copyright") }
        // Each format's own settings, only where they differ from the default.
        if options.pngInterlaced { parts.append("png-interlaced") }
        if let pngPaletteColors = options.pngPaletteColors { parts.append("png-palette:\(pngPaletteColors)") }
        if options.webpEffort != defaults.webpEffort { parts.append("webp-effort:\(options.webpEffort)") }
        if options.webpPreset != defaults.webpPreset { parts.append("webp-preset:" + options.webpPreset.rawValue) }
        if options.avifEffort != defaults.avifEffort { parts.append("avif-effort:\(options.avifEffort)") }
        if options.jxlEffort != defaults.jxlEffort { parts.append("jxl-effort:\(options.jxlEffort)") }
        if svgSources != .rasterize { parts.append(svgSources.key) }
        return parts.joined(separator: ",")
    }
}
