import WebImage

extension ServerConfig {
    /// The encoder settings every variant is written with.
    var encoderSettings: EncoderSettings {
        EncoderSettings(
            jpegProgressive: jpegProgressive, pngInterlaced: pngInterlaced, pngPaletteColors: pngQuantize ? pngQuantizationColors : nil,
            webpEffort: webpEffort, webpPreset: webpPreset, avifSpeed: avifSpeed, jxlEffort: jxlEffort
        )
    }

    /// Checks the encoder settings against imgproxy's ranges; the message names the flag and
    /// the variables.
    func validateEncoderSettings() throws(ServerConfigError) {
        let ranges: [(String, Int, ClosedRange<Int>, ServerSetting, String)] = [
            ("PNG quantization colours", pngQuantizationColors, 2...256, .pngQuantizationColors, "IMGPROXY_PNG_QUANTIZATION_COLORS"),
            ("WebP effort", webpEffort, 1...6, .webpEffort, "IMGPROXY_WEBP_EFFORT"),
            ("AVIF speed", avifSpeed, 0...9, .avifSpeed, "IMGPROXY_AVIF_SPEED"),
            ("JPEG XL effort", jxlEffort, 1...9, .jxlEffort, "IMGPROXY_JXL_EFFORT"),
        ]
        for (name, value, range, setting, imgproxyName) in ranges where !range.contains(value) {
            throw ServerConfigError(
                "\(name) \(value) is not in \(range.lowerBound)…\(range.upperBound) (--\(setting.flag), \(setting.environmentName), \(imgproxyName))"
            )
        }
    }
}
