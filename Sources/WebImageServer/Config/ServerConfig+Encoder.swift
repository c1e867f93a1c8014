import WebImage

extension ServerConfig {
    /// The encoder settings every variant starts from (imgproxy's `IMGPROXY_JPEG_PROGRESSIVE`,
    /// `IMGPROXY_PNG_*`, `IMGPROXY_WEBP_*`, `IMGPROXY_AVIF_SPEED` and `IMGPROXY_JXL_EFFORT`).
    /// Their format and the settings a URL can change are set per request.
    var encodeOptions: ImageEncodeOptions {
        ImageEncodeOptions(
            format: .jpeg, progressive: jpegProgressive, pngInterlaced: pngInterlaced,
            pngPaletteColors: pngQuantize ? pngQuantizationColors : nil, webpEffort: webpEffort, webpPreset: webpPreset,
            // imgproxy's speed is the encoder's effort turned round.
            avifEffort: 9 - avifSpeed, jxlEffort: jxlEffort
        )
    }
}
