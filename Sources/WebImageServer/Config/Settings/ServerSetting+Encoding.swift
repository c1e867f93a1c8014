import Foundation
import WebImage

/// The settings of ``SettingSection/encoding``.
extension ServerSetting {
    /// The settings of ``SettingSection/encoding``, in the order the help lists them.
    static let encodingSettings: [ServerSetting] = [
        quality, formatQuality, autoQualityTarget, bestFormats, preferredFormats, autoWebP, autoAVIF, enforceWebP, enforceAVIF, autoJXL,
        enforceJXL, jpegProgressive, pngInterlaced, pngQuantize, pngQuantizationColors, webpEffort, webpPreset, avifSpeed, jxlEffort,
        stripMetadata, keepCopyright, stripColorProfile, autoRotate, enforceThumbnail, skipProcessingFormats, sanitizeSVG, alwaysRasterizeSVG,
        jpegShrinkOnLoad,
        useLinearColorspace, watermarkData, watermarkPath, watermarkURL, watermarkOpacity,
    ]

    /// `--quality`: quality when the URL gives none, 1–100, or `auto`: chosen per image.
    public static let quality = ServerSetting(
        "quality", .encoding, kind: .custom, bounds: .within(1...100), placeholder: "N",
        imgproxy: [same("IMGPROXY_QUALITY")],
        default: "`80`",
        help: "quality when the URL gives none, 1–100, or `auto`: chosen per image",
        checkedValue: { config in (Double(config.encoding.defaultQuality), String(config.encoding.defaultQuality)) }
    ) { setting, values, config throws(ServerConfigError) in
        let value = values.last ?? ""
        if value.trimmingCharacters(in: .whitespaces).lowercased() == "auto" {
            config.encoding.defaultAutoQuality = true
        } else {
            config.encoding.defaultQuality = try SettingText.integer(value, setting)
            config.encoding.defaultAutoQuality = false
        }
    }

    /// `--format-quality`: quality of one format when the URL gives none (a URL's `format_quality` wins).
    public static let formatQuality = ServerSetting(
        "formatQuality", .encoding, kind: .list, placeholder: "FORMAT=Q",
        imgproxy: [own("IMGPROXY_FORMAT_QUALITY")],
        default: "none",
        imgproxyDefault: ["webp=79", "avif=63", "jxl=77"],
        help: "quality of one format when the URL gives none (a URL's `format_quality` wins)",
        check: { setting, config throws(ServerConfigError) in
            for (format, quality) in config.encoding.formatQuality.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where !(1...100).contains(quality) {
                throw setting.error("format quality \(format.rawValue)=\(quality) is not in 1…100")
            }
        }
    ) { setting, values, config throws(ServerConfigError) in
        var qualities: [ImageFormat: Int] = [:]
        for item in values {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let format = ImageFormat(name: parts[0]), let quality = Int(parts[1]) else {
                throw setting.invalid(item, "format=quality, e.g. webp=70 (formats jpeg, png, gif, webp, avif, heic, tiff, jxl, bmp, ico)")
            }
            qualities[format] = quality
        }
        config.encoding.formatQuality = qualities
    }

    /// `--auto-quality-target`: the SSIM `quality:auto` keeps when the URL gives no target, 0.5–0.9999.
    public static let autoQualityTarget = fraction(
        "autoQualityTarget", .encoding, \.encoding.autoQualityTarget, bounds: 0.5...0.9999, placeholder: "SSIM", example: "0.985",
        help: "the SSIM `quality:auto` keeps when the URL gives no target, 0.5–0.9999"
    )

    /// `--best-formats`: the candidates of `format:best`.
    public static let bestFormats = formats(
        "bestFormats", .encoding, \.encoding.bestFormats,
        default: "`jpeg,png,webp,avif`",
        help: "the candidates of `format:best`"
    )

    /// `--preferred-formats`: formats a source may keep when none is asked or negotiated; others become the first of these that fits (alpha, animation).
    public static let preferredFormats = formats(
        "preferredFormats", .encoding, \.encoding.preferredFormats,
        imgproxy: [same("IMGPROXY_PREFERRED_FORMATS")],
        default: "`jpeg,png,gif,webp,avif`",
        imgproxyDefault: "jpeg,png,gif",
        help: "formats a source may keep when none is asked or negotiated; others become the first of these that fits (alpha, animation)"
    )

    /// `--auto-webp`: WebP for clients whose `Accept` lists it, when the URL names no format.
    public static let autoWebP = bool(
        "autoWebP", .encoding, \.encoding.autoWebP,
        flag: "auto-webp",
        imgproxy: [same("IMGPROXY_AUTO_WEBP"), same("IMGPROXY_ENABLE_WEBP_DETECTION", isImgproxys: false)],
        imgproxyDefault: false,
        help: "WebP for clients whose `Accept` lists it, when the URL names no format"
    )

    /// `--auto-avif`: AVIF likewise, before WebP.
    public static let autoAVIF = bool(
        "autoAVIF", .encoding, \.encoding.autoAVIF,
        flag: "auto-avif",
        imgproxy: [same("IMGPROXY_AUTO_AVIF"), same("IMGPROXY_ENABLE_AVIF_DETECTION", isImgproxys: false)],
        imgproxyDefault: false,
        help: "AVIF likewise, before WebP"
    )

    /// `--enforce-webp`: WebP for clients whose `Accept` lists it even when the URL names a format.
    public static let enforceWebP = bool(
        "enforceWebP", .encoding, \.encoding.enforceWebP,
        flag: "enforce-webp",
        imgproxy: [same("IMGPROXY_ENFORCE_WEBP")],
        help: "WebP for clients whose `Accept` lists it even when the URL names a format"
    )

    /// `--enforce-avif`: AVIF likewise, before WebP.
    public static let enforceAVIF = bool(
        "enforceAVIF", .encoding, \.encoding.enforceAVIF,
        flag: "enforce-avif",
        imgproxy: [same("IMGPROXY_ENFORCE_AVIF")],
        help: "AVIF likewise, before WebP"
    )

    /// `--auto-jxl`: JPEG XL for clients whose `Accept` lists `image/jxl` when the URL names no format, before AVIF and WebP.
    public static let autoJXL = bool(
        "autoJXL", .encoding, \.encoding.autoJXL,
        flag: "auto-jxl",
        imgproxy: [same("IMGPROXY_AUTO_JXL")],
        help: "JPEG XL for clients whose `Accept` lists `image/jxl` when the URL names no format, before AVIF and WebP"
    )

    /// `--enforce-jxl`: JPEG XL likewise even when the URL names a format.
    public static let enforceJXL = bool(
        "enforceJXL", .encoding, \.encoding.enforceJXL,
        flag: "enforce-jxl",
        imgproxy: [same("IMGPROXY_ENFORCE_JXL")],
        help: "JPEG XL likewise even when the URL names a format"
    )

    /// `--jpeg-progressive`: progressive JPEGs.
    public static let jpegProgressive = bool(
        "jpegProgressive", .encoding, \.encoding.jpegProgressive,
        imgproxy: [same("IMGPROXY_JPEG_PROGRESSIVE")],
        help: "progressive JPEGs"
    )

    /// `--png-interlaced`: interlaced (Adam7) PNGs.
    public static let pngInterlaced = bool(
        "pngInterlaced", .encoding, \.encoding.pngInterlaced,
        imgproxy: [same("IMGPROXY_PNG_INTERLACED")],
        help: "interlaced (Adam7) PNGs"
    )

    /// `--png-quantize`: palette PNGs of at most `--png-quantization-colors` colours.
    public static let pngQuantize = bool(
        "pngQuantize", .encoding, \.encoding.pngQuantize,
        imgproxy: [same("IMGPROXY_PNG_QUANTIZE")],
        help: "palette PNGs of at most `--png-quantization-colors` colours"
    )

    /// `--png-quantization-colors`: colours of a palette PNG, 2–256, stored in 1, 2, 4 or 8 bits an entry.
    public static let pngQuantizationColors = integer(
        "pngQuantizationColors", .encoding, \.encoding.pngQuantizationColors, bounds: .within(2...256),
        imgproxy: [same("IMGPROXY_PNG_QUANTIZATION_COLORS")],
        help: "colours of a palette PNG, 2–256, stored in 1, 2, 4 or 8 bits an entry"
    )

    /// `--webp-effort`: WebP encoder effort, 1–6.
    public static let webpEffort = integer(
        "webpEffort", .encoding, \.encoding.webpEffort, bounds: .within(1...6),
        imgproxy: [same("IMGPROXY_WEBP_EFFORT")],
        help: "WebP encoder effort, 1–6"
    )

    /// `--webp-preset`: WebP encoder preset: `default`, `photo`, `picture`, `drawing`, `icon`, `text`.
    public static let webpPreset = choice(
        "webpPreset", .encoding, \.encoding.webpPreset, placeholder: "NAME",
        imgproxy: [same("IMGPROXY_WEBP_PRESET")],
        default: "`default`",
        help: "WebP encoder preset: `default`, `photo`, `picture`, `drawing`, `icon`, `text`"
    )

    /// `--avif-speed`: AVIF encoder speed 0–9: the encoder's effort is 9 minus it.
    public static let avifSpeed = integer(
        "avifSpeed", .encoding, \.encoding.avifSpeed, bounds: .within(0...9),
        imgproxy: [same("IMGPROXY_AVIF_SPEED")],
        imgproxyDefault: 8,
        help: "AVIF encoder speed 0–9: the encoder's effort is 9 minus it"
    )

    /// `--jxl-effort`: JPEG XL encoder effort, 1–9.
    public static let jxlEffort = integer(
        "jxlEffort", .encoding, \.encoding.jxlEffort, bounds: .within(1...9),
        imgproxy: [same("IMGPROXY_JXL_EFFORT")],
        help: "JPEG XL encoder effort, 1–9"
    )

    /// `--strip-metadata`: metadata left out unless the URL's `strip_metadata` says otherwise.
    public static let stripMetadata = bool(
        "stripMetadata", .encoding, \.encoding.stripMetadata,
        imgproxy: [same("IMGPROXY_STRIP_METADATA")],
        help: "metadata left out unless the URL's `strip_metadata` says otherwise"
    )

    /// `--keep-copyright`: the server's `keep_copyright` for URLs that do not set it.
    public static let keepCopyright = bool(
        "keepCopyright", .encoding, \.encoding.keepCopyright,
        imgproxy: [same("IMGPROXY_KEEP_COPYRIGHT")],
        imgproxyDefault: true,
        help: "the server's `keep_copyright` for URLs that do not set it"
    )

    /// `--strip-color-profile`: the server's `strip_color_profile` for URLs that do not set it: on, pixels with a profile that is not sRGB are converted to sRGB with it and the profile left out; off, the source's profile is kept with its own pixels.
    public static let stripColorProfile = bool(
        "stripColorProfile", .encoding, \.encoding.stripColorProfile,
        imgproxy: [same("IMGPROXY_STRIP_COLOR_PROFILE")],
        help: "the server's `strip_color_profile` for URLs that do not set it: on, pixels with a profile that is not sRGB are converted to sRGB with it and the profile left out; off, the source's profile is kept with its own pixels"
    )

    /// `--auto-rotate`: the server's `auto_rotate` for URLs that do not set it.
    public static let autoRotate = bool(
        "autoRotate", .encoding, \.encoding.autoRotate,
        imgproxy: [same("IMGPROXY_AUTO_ROTATE")],
        help: "the server's `auto_rotate` for URLs that do not set it"
    )

    /// `--enforce-thumbnail`: the server's `enforce_thumbnail` for URLs that do not set it.
    public static let enforceThumbnail = bool(
        "enforceThumbnail", .encoding, \.encoding.enforceThumbnail,
        imgproxy: [same("IMGPROXY_ENFORCE_THUMBNAIL")],
        help: "the server's `enforce_thumbnail` for URLs that do not set it"
    )

    /// `--skip-processing-formats`: source formats served unprocessed, besides a URL's `skip_processing`.
    public static let skipProcessingFormats = ServerSetting(
        "skipProcessingFormats", .encoding, kind: .custom, placeholder: "LIST",
        imgproxy: [same("IMGPROXY_SKIP_PROCESSING_FORMATS")],
        default: "none",
        help: "source formats served unprocessed, besides a URL's `skip_processing`"
    ) { setting, values, config throws(ServerConfigError) in
        let value = values.last ?? ""
        config.encoding.skipProcessingFormats = value.trimmingCharacters(in: .whitespaces).isEmpty ? [] : try SettingText.formats(value, setting)
    }

    /// `--sanitize-svg`: an SVG source served as SVG loses scripts, event handlers, `<foreignObject>` and references to other documents first; off, its bytes are served as they are.
    public static let sanitizeSVG = bool(
        "sanitizeSVG", .encoding, \.encoding.sanitizeSVG,
        flag: "sanitize-svg",
        imgproxy: [same("IMGPROXY_SANITIZE_SVG")],
        help: "an SVG source served as SVG loses scripts, event handlers, `<foreignObject>` and references to other documents first; off, its bytes are served as they are"
    )

    /// `--always-rasterize-svg`: an SVG source is rendered and encoded like any source when the URL names no format (unless `--skip-processing-formats` has `svg`); off, it is served as SVG. A URL's `format:svg` is always served as SVG.
    public static let alwaysRasterizeSVG = bool(
        "alwaysRasterizeSVG", .encoding, \.encoding.alwaysRasterizeSVG,
        flag: "always-rasterize-svg",
        imgproxy: [same("IMGPROXY_ALWAYS_RASTERIZE_SVG")],
        help: "an SVG source is rendered and encoded like any source when the URL names no format (unless `--skip-processing-formats` has `svg`); off, it is served as SVG. A URL's `format:svg` is always served as SVG"
    )

    /// `--jpeg-shrink-on-load`: how far a JPEG source shrinks in libjpeg before the resample: `leave-resample` leaves a factor of two or more for it, as libvips' own thumbnail does; `to-target` goes as far as the target, as imgproxy and sharp do: on the photo corpus 0.90× the CPU an image, at 0.6 dB less PSNR against a full-size decode.
    public static let jpegShrinkOnLoad = choice(
        "jpegShrinkOnLoad", .encoding, \.encoding.jpegShrinkOnLoad, placeholder: "RULE",
        default: "`leave-resample`",
        imgproxyDefault: .toTarget,
        help: "how far a JPEG source shrinks in libjpeg before the resample: `leave-resample` leaves a factor of two or more for it, as libvips' own thumbnail does; `to-target` goes as far as the target, as imgproxy and sharp do: on the photo corpus 0.90× the CPU an image, at 0.6 dB less PSNR against a full-size decode"
    )

    /// `--use-linear-colorspace`: resize in linear light instead of on sRGB's gamma-encoded values, the shrink-on-load decode's resample included (float pixels: it costs CPU).
    public static let useLinearColorspace = bool(
        "useLinearColorspace", .encoding, \.encoding.useLinearColorspace,
        imgproxy: [same("IMGPROXY_USE_LINEAR_COLORSPACE")],
        help: "resize in linear light instead of on sRGB's gamma-encoded values, the shrink-on-load decode's resample included (float pixels: it costs CPU)"
    )

    /// `--watermark-data`: the watermark image for `watermark`, base64-encoded (first of the three sources).
    public static let watermarkData = optionalText(
        "watermarkData", .encoding, \.encoding.watermarkData, placeholder: "BASE64",
        imgproxy: [same("IMGPROXY_WATERMARK_DATA")],
        help: "the watermark image for `watermark`, base64-encoded (first of the three sources)",
        check: { setting, data throws(ServerConfigError) in
            if ConfiguredImage.decodeBase64(data) == nil { throw setting.error("the watermark data is not base64") }
        }
    )

    /// `--watermark-path`: the watermark image read from a file.
    public static let watermarkPath = optionalText(
        "watermarkPath", .encoding, \.encoding.watermarkPath, placeholder: "FILE",
        imgproxy: [same("IMGPROXY_WATERMARK_PATH")],
        help: "the watermark image read from a file",
        check: { setting, path throws(ServerConfigError) in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw setting.error("watermark file '\(path)' does not exist or is a directory")
            }
        }
    )

    /// `--watermark-url`: the watermark image downloaded at start-up (through the source guard).
    public static let watermarkURL = optionalText(
        "watermarkURL", .encoding, \.encoding.watermarkURL, placeholder: "URL",
        flag: "watermark-url",
        imgproxy: [same("IMGPROXY_WATERMARK_URL")],
        help: "the watermark image downloaded at start-up (through the source guard)",
        check: { setting, text throws(ServerConfigError) in
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw setting.error("the URL '\(text)' is not an http(s) URL")
            }
        }
    )

    /// `--watermark-opacity`: base opacity 0–1 every URL's watermark opacity is multiplied by.
    public static let watermarkOpacity = fraction(
        "watermarkOpacity", .encoding, \.encoding.watermarkOpacity, bounds: 0...1, placeholder: "O", example: "0.5",
        imgproxy: [same("IMGPROXY_WATERMARK_OPACITY")],
        help: "base opacity 0–1 every URL's watermark opacity is multiplied by"
    )
}
