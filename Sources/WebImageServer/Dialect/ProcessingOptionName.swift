/// The processing options the proxy understands, each with its imgproxy names.
enum ProcessingOptionName: CaseIterable {
    case resize, size, resizingType, width, height, dpr, enlarge, extend, gravity, crop, padding
    case quality, maxBytes, format, blur, sharpen, rotate, background, stripMetadata
    case cacheBuster, expires, raw, preset

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
        case .preset: ["preset", "pr"]
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
        case .dpr: "dpr:<ratio greater than 0, at most 8>"
        case .enlarge: "enlarge:<1|0> (alias el)"
        case .extend: "extend:<1|0>[:<gravity>[:<x offset>:<y offset>]] (alias ex)"
        case .gravity: "gravity:<ce|no|so|ea|we|noea|nowe|soea|sowe>[:<x offset>:<y offset>], gravity:sm or gravity:fp:<x>:<y> (alias g)"
        case .crop: "crop:<width>:<height>[:<gravity>] (alias c)"
        case .padding: "padding:<top>[:<right>[:<bottom>[:<left>]]] in pixels, CSS order (alias pd)"
        case .quality: "quality:<1…100> (alias q)"
        case .maxBytes: "max_bytes:<bytes> (alias mb)"
        case .format: "format:<jpg|png|webp|avif|gif|tiff|heic> (aliases f, ext)"
        case .blur: "blur:<sigma up to 100> (alias bl)"
        case .sharpen: "sharpen:<sigma up to 100> (alias sh)"
        case .rotate: "rotate:<a multiple of 90> (alias rot)"
        case .background: "background:<r>:<g>:<b> or background:<hex colour> (alias bg)"
        case .stripMetadata: "strip_metadata:<1|0> (alias sm)"
        case .cacheBuster: "cachebuster:<any text> (alias cb)"
        case .expires: "expires:<unix time> (alias exp)"
        case .raw: "raw:<1|0>"
        case .preset: "preset:<name>[:<name>…] (alias pr)"
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
