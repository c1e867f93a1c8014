import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

/// The encoder settings and JPEG XL negotiation as settings: imgproxy's variables, the
/// flags' variables, imgproxy's ranges (its `vips/config.go` `Validate`) and defaults (its
/// `NewDefaultConfig`), and what a variant is encoded with.
@Suite("encoder settings and JPEG XL negotiation: configuration")
struct EncoderSettingsConfigTests {
    @Test("imgproxy's encoder and JPEG XL variables are applied, none listed as ignored")
    func imgproxyVariables() throws {
        var config = ServerConfig()
        let ignored = try ImgproxyEnvironment.apply([
            "IMGPROXY_JPEG_PROGRESSIVE": "true", "IMGPROXY_PNG_INTERLACED": "1", "IMGPROXY_PNG_QUANTIZE": "t",
            "IMGPROXY_PNG_QUANTIZATION_COLORS": "64", "IMGPROXY_WEBP_EFFORT": "6", "IMGPROXY_WEBP_PRESET": "Photo",
            "IMGPROXY_AVIF_SPEED": "2", "IMGPROXY_JXL_EFFORT": "9", "IMGPROXY_AUTO_JXL": "true", "IMGPROXY_ENFORCE_JXL": "false",
        ], to: &config)
        #expect(ignored.isEmpty)
        try config.validate()
        #expect(config.encoding.jpegProgressive && config.encoding.pngInterlaced && config.encoding.pngQuantize && config.encoding.pngQuantizationColors == 64)
        #expect(config.encoding.webpEffort == 6 && config.encoding.webpPreset == .photo && config.encoding.avifSpeed == 2 && config.encoding.jxlEffort == 9)
        #expect(config.encoding.autoJXL && !config.encoding.enforceJXL)

        let encoder = config.encoding.encodeOptions
        #expect(encoder.progressive && encoder.pngInterlaced && encoder.pngPaletteColors == 64)
        #expect(encoder.webpEffort == 6 && encoder.webpPreset == .photo && encoder.avifEffort == 7 && encoder.jxlEffort == 9)
    }

    @Test("ENFORCE_JXL set to true starts the server; it no longer stops start-up")
    func enforceJXLStarts() throws {
        var config = ServerConfig()
        #expect(try ImgproxyEnvironment.apply(["IMGPROXY_ENFORCE_JXL": "true"], to: &config).isEmpty)
        #expect(config.encoding.enforceJXL)
        for name in ["IMGPROXY_AUTO_JXL", "IMGPROXY_ENFORCE_JXL", "IMGPROXY_JXL_EFFORT", "IMGPROXY_WEBP_PRESET", "IMGPROXY_AVIF_SPEED"] {
            #expect(ImgproxyEnvironment.appliedNames.contains(name) && ImgproxyEnvironment.unapplied[name] == nil, "\(name)")
        }
    }

    @Test("each setting has its flag and WEBIMAGE_* variable")
    func flagsAndVariables() throws {
        let names: [(ServerSetting, String, String)] = [
            (.autoJXL, "auto-jxl", "WEBIMAGE_AUTO_JXL"), (.enforceJXL, "enforce-jxl", "WEBIMAGE_ENFORCE_JXL"),
            (.jpegProgressive, "jpeg-progressive", "WEBIMAGE_JPEG_PROGRESSIVE"), (.pngInterlaced, "png-interlaced", "WEBIMAGE_PNG_INTERLACED"),
            (.pngQuantize, "png-quantize", "WEBIMAGE_PNG_QUANTIZE"),
            (.pngQuantizationColors, "png-quantization-colors", "WEBIMAGE_PNG_QUANTIZATION_COLORS"),
            (.webpEffort, "webp-effort", "WEBIMAGE_WEBP_EFFORT"), (.webpPreset, "webp-preset", "WEBIMAGE_WEBP_PRESET"),
            (.avifSpeed, "avif-speed", "WEBIMAGE_AVIF_SPEED"), (.jxlEffort, "jxl-effort", "WEBIMAGE_JXL_EFFORT"),
        ]
        for (setting, flag, variable) in names {
            #expect(setting.flag == flag && setting.environmentName == variable)
        }
        var config = ServerConfig()
        try ServerSetting.apply(environment: ["WEBIMAGE_WEBP_PRESET": "text", "WEBIMAGE_AVIF_SPEED": "9", "WEBIMAGE_ENFORCE_JXL": "yes"], to: &config)
        #expect(config.encoding.webpPreset == .text && config.encoding.avifSpeed == 9 && config.encoding.enforceJXL)
    }

    /// imgproxy's `vips/config.go` `Validate`: colours 2…256, WebP effort 1…6, AVIF speed
    /// 0…9, JPEG XL effort 1…9, each out of range stopping start-up.
    static let ranges: [(variable: String, flag: String, inside: [String], outside: [String])] = [
        ("IMGPROXY_PNG_QUANTIZATION_COLORS", "--png-quantization-colors", ["2", "256"], ["1", "257"]),
        ("IMGPROXY_WEBP_EFFORT", "--webp-effort", ["1", "6"], ["0", "7"]),
        ("IMGPROXY_AVIF_SPEED", "--avif-speed", ["0", "9"], ["-1", "10"]),
        ("IMGPROXY_JXL_EFFORT", "--jxl-effort", ["1", "9"], ["0", "10"]),
    ]

    @Test("a value out of imgproxy's range stops start-up, naming the flag and both variables")
    func ranges() throws {
        for (variable, flag, inside, outside) in Self.ranges {
            for value in inside {
                var config = ServerConfig()
                try ImgproxyEnvironment.apply([variable: value], to: &config)
                try config.validate()
            }
            for value in outside {
                var config = ServerConfig()
                try ImgproxyEnvironment.apply([variable: value], to: &config)
                do {
                    try config.validate()
                    Issue.record("\(variable)=\(value) was accepted")
                } catch {
                    let webimage = "WEBIMAGE_" + variable.dropFirst("IMGPROXY_".count)
                    #expect(error.message.contains(flag) && error.message.contains(webimage) && error.message.contains(variable), "\(error.message)")
                    #expect(error.message.contains(value), "\(error.message)")
                }
            }
        }
    }

    @Test("a value that cannot be read stops start-up naming the variable")
    func unreadable() {
        for (name, value) in [("IMGPROXY_WEBP_PRESET", "vivid"), ("IMGPROXY_WEBP_EFFORT", "fast"), ("IMGPROXY_JPEG_PROGRESSIVE", "maybe")] {
            var config = ServerConfig()
            #expect { try ImgproxyEnvironment.apply([name: value], to: &config) } throws: { error in
                (error as? ServerConfigError)?.message.hasPrefix("\(name): '\(value)' is not") == true
            }
        }
        var config = ServerConfig()
        #expect { try ServerSetting.webpPreset.apply(["vivid"], to: &config) } throws: { error in
            (error as? ServerConfigError)?.message.contains("default, picture, photo, drawing, icon, text") == true
        }
    }

    /// imgproxy's `vips.NewDefaultConfig` and `clientfeatures.NewDefaultConfig`: no
    /// progressive JPEG or interlaced PNG, no quantisation (256 colours when on), WebP
    /// effort 4 with the default preset, AVIF speed 8, JPEG XL effort 4, no JPEG XL negotiation.
    @Test("the imgproxy profile starts from imgproxy's encoder defaults; WebImage's from libvips' and its own")
    func profileDefaults() {
        for profile in ServerProfile.allCases {
            let config = profile.defaults
            #expect(!config.encoding.jpegProgressive && !config.encoding.pngInterlaced && !config.encoding.pngQuantize && config.encoding.pngQuantizationColors == 256)
            #expect(config.encoding.webpEffort == 4 && config.encoding.webpPreset == .default && config.encoding.jxlEffort == 4)
            #expect(!config.encoding.autoJXL && !config.encoding.enforceJXL)
            #expect(config.encoding.encodeOptions.pngPaletteColors == nil)
        }
        #expect(ServerProfile.imgproxy.defaults.encoding.avifSpeed == 8)
        #expect(ServerProfile.imgproxy.defaults.encoding.encodeOptions.avifEffort == 1)
        // WebImage's AVIF speed is libvips' effort 4.
        #expect(ServerProfile.webimage.defaults.encoding.avifSpeed == 5)
        #expect(ServerProfile.webimage.defaults.encoding.encodeOptions.avifEffort == ImageEncodeOptions(format: .avif).avifEffort)
    }
}
