/// The processing options the proxy understands, each with its imgproxy names.
enum ProcessingOptionName: CaseIterable {
    case resize, size, resizingType, width, height, dpr, enlarge, extend, gravity, crop, padding
    case quality, maxBytes, format, blur, sharpen, rotate, background, stripMetadata
    case cacheBuster, expires, raw, preset
    // Output, handling, filter and security options.
    case backgroundAlpha, stripColorProfile, keepCopyright, enforceThumbnail, formatQuality, skipProcessing
    case filename, returnAttachment, trim, pixelate, watermark
    case maxSourceResolution, maxSourceFileSize, maxAnimationFrames, maxAnimationFrameResolution, maxResultDimension
    // Geometry options of imgproxy's processing tests.
    case minWidth, minHeight, zoom, extendAspectRatio, autoRotate, flip
    // What /info reports.
    case gps
    /// imgproxy's `preserve_hdr`: accepted off; on, refused, since results are 8-bit.
    case preserveHDR

    /// Full name first, then aliases, as imgproxy spells them.
    var names: [String] {
        switch self {
        case .resize: ["resize", "rs"]
        case .size: ["size", "s"]
        case .resizingType: ["resizing_type", "rt"]
        case .width: ["width", "w"]
        case .height: ["height", "h"]
        case .dpr: ["dpr"]
        case .enlarge: ["enlarge", "el"]
        case .extend: ["extend", "ex"]
        case .gravity: ["gravity", "g"]
        case .crop: ["crop", "c"]
        case .padding: ["padding", "pd"]
        case .quality: ["quality", "q"]
        case .maxBytes: ["max_bytes", "mb"]
        case .format: ["format", "f", "ext"]
        case .blur: ["blur", "bl"]
        case .sharpen: ["sharpen", "sh"]
        case .rotate: ["rotate", "rot"]
        case .background: ["background", "bg"]
        case .stripMetadata: ["strip_metadata", "sm"]
        case .cacheBuster: ["cachebuster", "cb"]
        case .expires: ["expires", "exp"]
        case .raw: ["raw"]
        case .preserveHDR: ["preserve_hdr", "ph"]
        case .preset: ["preset", "pr"]
        case .backgroundAlpha: ["background_alpha", "bga"]
        case .stripColorProfile: ["strip_color_profile", "scp"]
        case .keepCopyright: ["keep_copyright", "kcr"]
        case .enforceThumbnail: ["enforce_thumbnail", "eth"]
        case .formatQuality: ["format_quality", "fq"]
        case .skipProcessing: ["skip_processing", "skp"]
        case .filename: ["filename", "fn"]
        case .returnAttachment: ["return_attachment", "att"]
        case .trim: ["trim", "t"]
        case .pixelate: ["pixelate", "pix"]
        case .watermark: ["watermark", "wm"]
        case .maxSourceResolution: ["max_src_resolution", "msr"]
        case .maxSourceFileSize: ["max_src_file_size", "msfs"]
        case .maxAnimationFrames: ["max_animation_frames", "maf"]
        case .maxAnimationFrameResolution: ["max_animation_frame_resolution", "mafr"]
        case .maxResultDimension: ["max_result_dimension", "mrd"]
        case .minWidth: ["min-width", "mw"]
        case .minHeight: ["min-height", "mh"]
        case .zoom: ["zoom", "z"]
        case .extendAspectRatio: ["extend_aspect_ratio", "extend_ar", "exar"]
        case .autoRotate: ["auto_rotate", "ar"]
        case .flip: ["flip", "fl"]
        case .gps: ["gps"]
        }
    }

    /// The accepted form, quoted in error messages.
    var usage: String {
        switch self {
        case .resize: "resize:<fit|fill|fill-down|force|auto>:<width>:<height>:<enlarge>:<extend>[:<gravity>] (alias rs)"
        case .size: "size:<width>:<height>:<enlarge>:<extend>[:<gravity>] (alias s)"
        case .resizingType: "resizing_type:<fit|fill|fill-down|force|auto> (alias rt)"
        case .width: "width:<pixels> (alias w)"
        case .height: "height:<pixels> (alias h)"
        case .dpr: "dpr:<ratio greater than 0, at most 1000>"
        case .enlarge: "enlarge:<1|0> (alias el)"
        case .extend: "extend:<1|0>[:<gravity>[:<x offset>:<y offset>]] (alias ex)"
        case .gravity: "gravity:<ce|no|so|ea|we|noea|nowe|soea|sowe>[:<x offset>:<y offset>], gravity:sm or gravity:fp:<x>:<y> (alias g)"
        case .crop: "crop:<width>:<height>[:<gravity>] (alias c)"
        case .padding: "padding:<top>[:<right>[:<bottom>[:<left>]]] in pixels, CSS order (alias pd)"
        case .quality: "quality:<1…100> or quality:auto[:<SSIM target 0.5…0.9999>] (alias q)"
        case .maxBytes: "max_bytes:<bytes> (alias mb)"
        case .format: "format:<jpg|png|webp|avif|gif|tiff|heic|jxl|bmp|ico|svg|best|thumbhash> (aliases f, ext)"
        case .blur: "blur:<sigma up to 100000> (alias bl)"
        case .sharpen: "sharpen:<sigma up to 100> (alias sh)"
        case .rotate: "rotate:<a multiple of 90> (alias rot)"
        case .background: "background:<r>:<g>:<b> or background:<hex colour> (alias bg)"
        case .stripMetadata: "strip_metadata:<1|0> (alias sm)"
        case .cacheBuster: "cachebuster:<any text> (alias cb)"
        case .expires: "expires:<unix time> (alias exp)"
        case .raw: "raw:<1|0>"
        case .preserveHDR: "preserve_hdr:0 (alias ph; 1 is refused: results are 8 bits a channel)"
        case .preset: "preset:<name>[:<name>…] (alias pr)"
        case .backgroundAlpha: "background_alpha:<0…1> (alias bga)"
        case .stripColorProfile: "strip_color_profile:<1|0> (alias scp)"
        case .keepCopyright: "keep_copyright:<1|0> (alias kcr)"
        case .enforceThumbnail: "enforce_thumbnail:<1|0> (alias eth)"
        case .formatQuality: "format_quality:<format>:<quality 0…100>[:<format>:<quality>…] (alias fq)"
        case .skipProcessing: "skip_processing:<format>[:<format>…] (alias skp)"
        case .filename: "filename:<name>[:<1 if the name is URL-safe base64>] (alias fn)"
        case .returnAttachment: "return_attachment:<1|0> (alias att)"
        case .trim: "trim:<threshold 0…1000>[:<hex colour>[:<equal horizontal 1|0>[:<equal vertical 1|0>]]] (alias t)"
        case .pixelate: "pixelate:<block size in pixels> (alias pix)"
        case .watermark: "watermark:<opacity 0…1>[:<ce|no|so|ea|we|noea|nowe|soea|sowe|re>[:<x offset>[:<y offset>[:<scale>]]]] (alias wm)"
        case .maxSourceResolution: "max_src_resolution:<megapixels> (alias msr)"
        case .maxSourceFileSize: "max_src_file_size:<bytes, 0 for no limit> (alias msfs)"
        case .maxAnimationFrames: "max_animation_frames:<frames, at least 1> (alias maf)"
        case .maxAnimationFrameResolution: "max_animation_frame_resolution:<megapixels, 0 for no limit> (alias mafr)"
        case .maxResultDimension: "max_result_dimension:<pixels, 0 for no limit> (alias mrd)"
        case .minWidth: "min-width:<pixels> (alias mw)"
        case .minHeight: "min-height:<pixels> (alias mh)"
        case .zoom: "zoom:<factor greater than 0, at most 1000>[:<vertical factor>] (alias z)"
        case .extendAspectRatio: "extend_aspect_ratio:<1|0>[:<gravity>[:<x offset>:<y offset>]] (aliases extend_ar, exar)"
        case .autoRotate: "auto_rotate:<1|0> (alias ar)"
        case .flip: "flip:<horizontal 1|0>[:<vertical 1|0>] (alias fl)"
        case .gps: "gps:<1|0>: /info includes the EXIF position (default 0)"
        }
    }

    /// Every name and alias, for lookup.
    static let byName: [Substring: ProcessingOptionName] = {
        var table: [Substring: ProcessingOptionName] = [:]
        for option in allCases {
            for name in option.names { table[Substring(name)] = option }
        }
        return table
    }()
}
