import WebImage

extension ServerConfig {
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
