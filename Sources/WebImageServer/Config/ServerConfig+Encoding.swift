import Foundation
import WebImage

extension ServerConfig {
    /// How images are processed and encoded, and which formats are served.
    public struct Encoding: Sendable {
        /// How far a JPEG source shrinks in libjpeg (its DCT scaling) on its way to a smaller
        /// variant: leaving a factor of two or more for the resample, as libvips' own thumbnail
        /// does (the default), or as far as the target, as imgproxy does (its profile's
        /// default), which takes about 10 % less CPU an image at 0.6 dB less PSNR.
        public var jpegShrinkOnLoad = ImageDecodeOptions.JPEGShrink.leavingResample
        /// Whether resizes work in linear light instead of on sRGB's gamma-encoded values
        /// (imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`): fine light detail keeps its
        /// brightness, at the cost of resampling float pixels. Default off.
        public var useLinearColorspace = false
        /// Serve WebP to clients whose `Accept` lists it when the URL names no format. Default on.
        public var autoWebP = true
        /// Serve AVIF to clients whose `Accept` lists it when the URL names no format (before WebP). Default on.
        public var autoAVIF = true
        /// Formats a source may keep when no format is asked for or negotiated; a source in
        /// another format is converted to the first of these that suits it (alpha, animation).
        public var preferredFormats: [ImageFormat] = [.jpeg, .png, .gif, .webp, .avif]
        /// Quality when the URL gives none. Default 80.
        public var defaultQuality = 80
        /// Auto quality for URLs that name no quality (`--quality auto`). Default off.
        public var defaultAutoQuality = false
        /// The SSIM target of auto quality when a URL gives none. Default 0.985.
        public var autoQualityTarget = AutoQuality.defaultTarget
        /// The candidates of `format:best`, in order. Default jpeg, png, webp, avif.
        public var bestFormats: [ImageFormat] = VariantFormat.defaultBestCandidates
        /// Per-format qualities used when the URL gives no quality (imgproxy's `IMGPROXY_FORMAT_QUALITY`).
        public var formatQuality: [ImageFormat: Int] = [:]
        /// Serve WebP to clients whose `Accept` lists it even when the URL names another format. Default off.
        public var enforceWebP = false
        /// Serve AVIF to clients whose `Accept` lists it even when the URL names another format. Default off.
        public var enforceAVIF = false
        /// Serve JPEG XL to clients whose `Accept` lists it when the URL names no format, before
        /// AVIF and WebP (imgproxy's `IMGPROXY_AUTO_JXL`). Default off.
        public var autoJXL = false
        /// Serve JPEG XL to clients whose `Accept` lists it even when the URL names another
        /// format, before AVIF and WebP (imgproxy's `IMGPROXY_ENFORCE_JXL`). Default off.
        public var enforceJXL = false
        /// Write progressive JPEGs (imgproxy's `IMGPROXY_JPEG_PROGRESSIVE`). Default off.
        public var jpegProgressive = false
        /// Write interlaced PNGs (imgproxy's `IMGPROXY_PNG_INTERLACED`). Default off.
        public var pngInterlaced = false
        /// Write PNGs with a palette of at most ``pngQuantizationColors`` colours (imgproxy's
        /// `IMGPROXY_PNG_QUANTIZE`). Default off.
        public var pngQuantize = false
        /// The colours of a quantised PNG's palette, 2…256; stored in 1, 2, 4 or 8 bits an entry,
        /// it holds at most 2, 4, 16 or 256 (`ImageEncodeOptions.pngPaletteColors`), as
        /// imgproxy's `IMGPROXY_PNG_QUANTIZATION_COLORS`. Default 256.
        public var pngQuantizationColors = 256
        /// libwebp's effort, 1 (fastest) to 6 (smallest), as imgproxy's `IMGPROXY_WEBP_EFFORT`. Default 4.
        public var webpEffort = 4
        /// The kind of picture lossy WebP is tuned for (imgproxy's `IMGPROXY_WEBP_PRESET`). Default `WebPPreset.default`.
        public var webpPreset = WebPPreset.default
        /// AVIF's encoding speed, 0 (slowest, smallest) to 9 (fastest): the AV1 encoder's effort
        /// is 9 minus it, as imgproxy's `IMGPROXY_AVIF_SPEED`. Default 5 (libvips' effort 4);
        /// imgproxy's 8.
        public var avifSpeed = 5
        /// libjxl's effort for JPEG XL, 1 (fastest) to 9 (smallest), as imgproxy's
        /// `IMGPROXY_JXL_EFFORT`. Default 4.
        public var jxlEffort = 4
        /// Leave metadata (EXIF, XMP, IPTC) out of served images unless the URL says otherwise. Default on.
        public var stripMetadata = true
        /// A watermark image file for the `watermark` option.
        public var watermarkPath: String?
        /// A watermark image URL for the `watermark` option, fetched like a source.
        public var watermarkURL: String?
        /// A watermark image as base64 for the `watermark` option.
        public var watermarkData: String?
        /// The watermark's base opacity, 0…1, multiplied by the URL's. Default 1.
        public var watermarkOpacity = 1.0
        /// Keep copyright metadata when metadata is stripped, unless the URL says otherwise
        /// (`keep_copyright`). Default off; imgproxy's on.
        public var keepCopyright = false
        /// Strip the colour profile (converting to sRGB) unless the URL says otherwise
        /// (`strip_color_profile`). Default on.
        public var stripColorProfile = true
        /// Turn images upright by their EXIF orientation unless the URL says otherwise
        /// (`auto_rotate`). Default on.
        public var autoRotate = true
        /// Use a source's embedded thumbnail when it has one, unless the URL says otherwise
        /// (`enforce_thumbnail`). Default off.
        public var enforceThumbnail = false
        /// Source formats served as they are, unprocessed, besides those a URL names
        /// (`skip_processing`). Default none.
        public var skipProcessingFormats: [ImageFormat] = []
        /// Sanitise an SVG source served as SVG with `SVGSanitizer` (imgproxy's
        /// `IMGPROXY_SANITIZE_SVG`); off, its bytes are served as they are. Default on.
        public var sanitizeSVG = true
        /// Render and encode an SVG source like any other when the URL names no format,
        /// unless ``skipProcessingFormats`` (or the URL's `skip_processing`) has SVG
        /// (imgproxy's `IMGPROXY_ALWAYS_RASTERIZE_SVG`); off, it is served as SVG. Default off.
        public var alwaysRasterizeSVG = false

        /// The defaults.
        public init() {}
    }
}

extension ServerConfig.Encoding {
    /// The encoder settings every variant starts from (imgproxy's `IMGPROXY_JPEG_PROGRESSIVE`,
    /// `IMGPROXY_PNG_*`, `IMGPROXY_WEBP_*`, `IMGPROXY_AVIF_SPEED` and `IMGPROXY_JXL_EFFORT`).
    /// Their format and the settings a URL can change are set per request.
    var encodeOptions: ImageEncodeOptions {
        var options = VariantEncoding.defaultOptions
        options.progressive = jpegProgressive
        options.pngInterlaced = pngInterlaced
        options.pngPaletteColors = pngQuantize ? pngQuantizationColors : nil
        options.webpEffort = webpEffort
        options.webpPreset = webpPreset
        // imgproxy's speed is the encoder's effort turned round.
        options.avifEffort = 9 - avifSpeed
        options.jxlEffort = jxlEffort
        return options
    }
}

extension ServerConfig.Encoding {
    /// What a URL with `options` makes of an SVG source, by imgproxy's rule: served as SVG
    /// when the URL names `svg`, or names no format and either ``alwaysRasterizeSVG`` is off
    /// or SVG is among the formats served unprocessed; sanitised unless ``sanitizeSVG`` is
    /// off. Otherwise rendered and encoded as the URL asks (its `format`, or the one
    /// negotiated).
    func svgSources(for options: ProcessingOptions) -> SVGSourceHandling {
        let served = options.format == .svg
            || options.format == nil && (!alwaysRasterizeSVG || options.passthroughFormats.contains(.svg))
        guard served else { return .rasterize }
        return .serve(sanitizer: sanitizeSVG ? SVGSanitizer() : nil)
    }
}
