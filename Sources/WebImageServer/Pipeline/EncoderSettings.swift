import WebImage

/// The server-wide encoder settings every variant is written with (imgproxy's
/// `IMGPROXY_JPEG_PROGRESSIVE`, `IMGPROXY_PNG_*`, `IMGPROXY_WEBP_*`, `IMGPROXY_AVIF_SPEED`
/// and `IMGPROXY_JXL_EFFORT`), as ``ServerConfig`` holds them.
struct EncoderSettings: Sendable, Hashable {
    /// Progressive JPEG.
    var jpegProgressive = false
    /// Interlaced PNG.
    var pngInterlaced = false
    /// Palette PNG of about this many colours; `nil`: full colour.
    var pngPaletteColors: Int?
    /// libwebp's effort, 1…6.
    var webpEffort = 4
    /// The WebP preset.
    var webpPreset = WebPPreset.default
    /// imgproxy's AVIF speed, 0…9: the encoder's effort is 9 minus it.
    var avifSpeed = 5
    /// libjxl's effort, 1…9.
    var jxlEffort = 4

    /// Sets these settings on `encoding`.
    func apply(to encoding: inout VariantEncoding) {
        encoding.progressive = jpegProgressive
        encoding.pngInterlaced = pngInterlaced
        encoding.pngPaletteColors = pngPaletteColors
        encoding.webpEffort = webpEffort
        encoding.webpPreset = webpPreset
        encoding.avifEffort = 9 - avifSpeed
        encoding.jxlEffort = jxlEffort
    }
}
