import WebImage

extension ServerConfig {
    /// The encoder settings every variant is written with.
    var encoderSettings: EncoderSettings {
        EncoderSettings(
            jpegProgressive: jpegProgressive, pngInterlaced: pngInterlaced, pngPaletteColors: pngQuantize ? pngQuantizationColors : nil,
            webpEffort: webpEffort, webpPreset: webpPreset, avifSpeed: avifSpeed, jxlEffort: jxlEffort
        )
    }
}
