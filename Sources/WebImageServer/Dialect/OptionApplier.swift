import WebImage

/// Applies option segments to ``ProcessingOptions`` in URL order, expanding presets.
struct OptionApplier: Sendable {
    /// Largest accepted width, height, crop size or pixel offset.
    let maxDimension: Int
    /// Preset name → option string (`resize:fill:300:300/quality:80`).
    let presets: [String: String]
    /// Whether the security options (`max_src_resolution`…) may be used; else they are 403.
    var allowSecurityOptions = false

    /// How deep presets may refer to presets; deeper means a cycle.
    static let maxPresetDepth = 8
    /// Largest `max_bytes`: 1 GiB.
    static let maxBytesLimit = 1 << 30

    /// Applies one `name:args…` segment.
    func apply(_ text: Substring, to options: inout ProcessingOptions, presetDepth: Int = 0) throws(ProxyError) {
        let segment = OptionSegment(text)
        guard let option = ProcessingOptionName.byName[segment.name] else {
            throw .badRequest("unknown option '\(segment.name.prefix(64))' in segment '\(text.prefix(100))'; see imgproxy's processing options (e.g. rs, w, h, g, q, f)")
        }
        let usage = option.usage
        switch option {
        case .resize:
            try segment.requireCount(1...8, usage: usage)
            if let type = segment.optional(0) { options.resizingType = try resizingType(type, in: segment, usage: usage) }
            try applySize(segment, from: 1, to: &options, usage: usage)
        case .size:
            try segment.requireCount(1...7, usage: usage)
            try applySize(segment, from: 0, to: &options, usage: usage)
        case .resizingType:
            try segment.requireCount(1...1, usage: usage)
            options.resizingType = try resizingType(segment.arguments[0], in: segment, usage: usage)
        case .width:
            try segment.requireCount(1...1, usage: usage)
            options.width = try segment.integer(0, "width", in: 0...maxDimension, usage: usage)
        case .height:
            try segment.requireCount(1...1, usage: usage)
            options.height = try segment.integer(0, "height", in: 0...maxDimension, usage: usage)
        case .dpr:
            try segment.requireCount(1...1, usage: usage)
            let dpr = try segment.decimal(0, "dpr", in: 0...8, usage: usage)
            guard dpr > 0 else { throw segment.error("dpr must be greater than 0", usage: usage) }
            options.dpr = dpr
        case .enlarge:
            try segment.requireCount(1...1, usage: usage)
            options.enlarge = try segment.boolean(0, "enlarge", usage: usage)
        case .extend:
            try segment.requireCount(1...4, usage: usage)
            try applyExtend(segment, from: 0, to: &options, usage: usage)
        case .gravity:
            try segment.requireCount(1...3, usage: usage)
            options.gravity = try gravity(segment, from: 0, allowSmart: true, usage: usage)
        case .crop:
            try segment.requireCount(2...5, usage: usage)
            let width = try segment.decimal(0, "crop width", in: 0...Double(maxDimension), usage: usage)
            let height = try segment.decimal(1, "crop height", in: 0...Double(maxDimension), usage: usage)
            let cropGravity = segment.arguments.count > 2 ? try gravity(segment, from: 2, allowSmart: true, usage: usage) : nil
            options.crop = CropOption(width: width, height: height, gravity: cropGravity)
        case .padding:
            try segment.requireCount(1...4, usage: usage)
            options.padding = try padding(segment, usage: usage)
        case .quality:
            try segment.requireCount(1...1, usage: usage)
            let quality = try segment.integer(0, "quality", in: 0...100, usage: usage)
            options.quality = quality == 0 ? nil : quality
        case .maxBytes:
            try segment.requireCount(1...1, usage: usage)
            let bytes = try segment.integer(0, "max bytes", in: 0...Self.maxBytesLimit, usage: usage)
            options.maxBytes = bytes == 0 ? nil : bytes
        case .format:
            try segment.requireCount(1...1, usage: usage)
            options.format = try Self.outputFormat(segment.arguments[0], usage: usage, segment: segment)
        case .blur:
            try segment.requireCount(1...1, usage: usage)
            let sigma = try segment.decimal(0, "blur sigma", in: 0...100, usage: usage)
            options.blur = sigma == 0 ? nil : sigma
        case .sharpen:
            try segment.requireCount(1...1, usage: usage)
            let sigma = try segment.decimal(0, "sharpen sigma", in: 0...100, usage: usage)
            options.sharpen = sigma == 0 ? nil : sigma
        case .rotate:
            try segment.requireCount(1...1, usage: usage)
            let angle = try segment.integer(0, "angle", in: -36_000...36_000, usage: usage)
            guard angle % 90 == 0 else { throw segment.error("angle \(angle) is not a multiple of 90", usage: usage) }
            options.rotate = ((angle % 360) + 360) % 360
        case .background:
            try segment.requireCount(0...3, usage: usage)
            options.background = try background(segment, usage: usage)
        case .stripMetadata:
            try segment.requireCount(1...1, usage: usage)
            options.stripMetadata = try segment.boolean(0, "strip metadata", usage: usage)
        case .cacheBuster:
            try segment.requireCount(1...1, usage: usage)
            let value = segment.arguments[0]
            options.cacheBuster = value.isEmpty ? nil : String(value)
        case .expires:
            try segment.requireCount(1...1, usage: usage)
            options.expires = try segment.integer(0, "expiry time", in: 0...Int(Int64.max / 2), usage: usage)
        case .raw:
            try segment.requireCount(1...1, usage: usage)
            options.raw = try segment.boolean(0, "raw", usage: usage)
        case .backgroundAlpha, .stripColorProfile, .keepCopyright, .enforceThumbnail, .formatQuality, .skipProcessing,
             .filename, .returnAttachment:
            try applyOutputOption(option, segment, to: &options, usage: usage)
        case .trim, .pixelate, .watermark:
            try applyFilterOption(option, segment, to: &options, usage: usage)
        case .maxSourceResolution, .maxSourceFileSize, .maxAnimationFrames, .maxAnimationFrameResolution, .maxResultDimension:
            try applySecurityOption(option, segment, to: &options, usage: usage)
        case .preset:
            try segment.requireCount(1...64, usage: usage)
            for name in segment.arguments {
                try applyPreset(String(name), to: &options, depth: presetDepth + 1)
            }
        }
    }

    /// Expands a preset in place: its options apply where the `preset` option stands.
    func applyPreset(_ name: String, to options: inout ProcessingOptions, depth: Int) throws(ProxyError) {
        guard let definition = presets[name] else {
            throw .badRequest("unknown preset '\(name.prefix(64))'; use one of the configured presets\(presets.isEmpty ? " (none are configured)" : ": " + presets.keys.sorted().joined(separator: ", "))")
        }
        guard depth <= Self.maxPresetDepth else {
            throw .badRequest("preset '\(name.prefix(64))' nests presets more than \(Self.maxPresetDepth) deep; presets must not refer to each other in a cycle")
        }
        for part in Substring(definition).fields(separatedBy: "/") where !part.isEmpty {
            do throws(ProxyError) {
                try apply(part, to: &options, presetDepth: depth)
            } catch {
                // Say which preset holds the bad option: the URL itself looks fine.
                throw ProxyError(status: error.status, message: "in preset '\(name.prefix(64))': \(error.message)")
            }
        }
    }

    /// A writable output format named by an extension or `format` argument.
    static func outputFormat(_ name: Substring, usage: String, segment: OptionSegment?) throws(ProxyError) -> ImageFormat {
        guard let format = ImageFormat(name: String(name)), format.isWritable else {
            let problem = "unsupported output format '\(name.prefix(32))'"
            if let segment { throw segment.error(problem, usage: usage) }
            throw .badRequest("\(problem) in the URL's extension; use \(usage)")
        }
        return format
    }

    // MARK: - Arguments shared by several options

    private func resizingType(_ text: Substring, in segment: OptionSegment, usage: String) throws(ProxyError) -> ResizingType {
        guard let type = ResizingType(rawValue: String(text)) else {
            throw segment.error("unknown resizing type '\(text.prefix(32))'", usage: usage)
        }
        return type
    }

    /// `width:height:enlarge:extend[:gravity…]` starting at `first`; empty arguments keep
    /// the current value.
    private func applySize(_ segment: OptionSegment, from first: Int, to options: inout ProcessingOptions, usage: String) throws(ProxyError) {
        if segment.optional(first) != nil {
            options.width = try segment.integer(first, "width", in: 0...maxDimension, usage: usage)
        }
        if segment.optional(first + 1) != nil {
            options.height = try segment.integer(first + 1, "height", in: 0...maxDimension, usage: usage)
        }
        if segment.optional(first + 2) != nil {
            options.enlarge = try segment.boolean(first + 2, "enlarge", usage: usage)
        }
        if segment.optional(first + 3) != nil {
            try applyExtend(segment, from: first + 3, to: &options, usage: usage)
        }
    }

    /// `extend[:gravity[:x:y]]` starting at `first`.
    private func applyExtend(_ segment: OptionSegment, from first: Int, to options: inout ProcessingOptions, usage: String) throws(ProxyError) {
        options.extend = try segment.boolean(first, "extend", usage: usage)
        options.extendGravity = segment.arguments.count > first + 1
            ? try gravity(segment, from: first + 1, allowSmart: false, usage: usage)
            : .center
    }

    /// A gravity whose type is at `first`; every argument after it belongs to the gravity.
    private func gravity(_ segment: OptionSegment, from first: Int, allowSmart: Bool, usage: String) throws(ProxyError) -> ProxyGravity {
        let type = segment.arguments[first]
        let extra = segment.arguments.count - first - 1
        switch type {
        case "sm":
            guard allowSmart else { throw segment.error("smart gravity cannot place an extended image", usage: usage) }
            guard extra == 0 else { throw segment.error("smart gravity takes no offsets", usage: usage) }
            return .smart
        case "fp":
            guard extra == 2 else { throw segment.error("focus-point gravity needs fp:<x>:<y>", usage: usage) }
            let x = try segment.decimal(first + 1, "focus point x", in: 0...1, usage: usage)
            let y = try segment.decimal(first + 2, "focus point y", in: 0...1, usage: usage)
            return .focusPoint(x: x, y: y)
        default:
            guard let anchor = GravityAnchor(rawValue: String(type)) else {
                throw segment.error("unknown gravity '\(type.prefix(32))'", usage: usage)
            }
            guard extra == 0 || extra == 2 else {
                throw segment.error("gravity offsets come in pairs: <type>:<x offset>:<y offset>", usage: usage)
            }
            guard extra == 2 else { return .anchor(anchor, xOffset: 0, yOffset: 0) }
            let bound = Double(maxDimension)
            let x = try segment.decimal(first + 1, "x offset", in: -bound...bound, usage: usage)
            let y = try segment.decimal(first + 2, "y offset", in: -bound...bound, usage: usage)
            return .anchor(anchor, xOffset: x, yOffset: y)
        }
    }

    /// CSS shorthand: a missing right copies the top, a missing bottom the top, a missing
    /// left the right; all zero is no padding.
    private func padding(_ segment: OptionSegment, usage: String) throws(ProxyError) -> ImagePadding? {
        var sides = [0, 0, 0, 0]
        for (index, name) in ["top", "right", "bottom", "left"].enumerated() where segment.optional(index) != nil {
            let value = try segment.integer(index, "\(name) padding", in: 0...maxDimension, usage: usage)
            switch index {
            case 0: sides = [value, value, value, value]
            case 1: sides[1] = value; sides[3] = value
            default: sides[index] = value
            }
        }
        guard sides.contains(where: { $0 > 0 }) else { return nil }
        return ImagePadding(top: sides[0], right: sides[1], bottom: sides[2], left: sides[3])
    }

    private func background(_ segment: OptionSegment, usage: String) throws(ProxyError) -> ImageColor? {
        switch segment.arguments.count {
        case 0:
            return nil
        case 1:
            let hex = segment.arguments[0]
            if hex.isEmpty { return nil }
            guard let color = Self.color(hex: hex) else {
                throw segment.error("'\(hex.prefix(32))' is not a hex colour (3 or 6 hex digits)", usage: usage)
            }
            return color
        case 3:
            let red = try segment.integer(0, "red", in: 0...255, usage: usage)
            let green = try segment.integer(1, "green", in: 0...255, usage: usage)
            let blue = try segment.integer(2, "blue", in: 0...255, usage: usage)
            return ImageColor(red: UInt8(red), green: UInt8(green), blue: UInt8(blue))
        default:
            throw segment.error("expected 1 hex colour or 3 channel values, got \(segment.arguments.count) arguments", usage: usage)
        }
    }

    /// A colour of 3 or 6 hex digits (`f80`, `ff8000`).
    static func color(hex: Substring) -> ImageColor? {
        var digits: [UInt8] = []
        for character in hex.utf8 {
            guard let value = HexDigit.value(character) else { return nil }
            digits.append(value)
        }
        switch digits.count {
        case 3: return ImageColor(red: digits[0] * 17, green: digits[1] * 17, blue: digits[2] * 17)
        case 6: return ImageColor(red: digits[0] << 4 | digits[1], green: digits[2] << 4 | digits[3], blue: digits[4] << 4 | digits[5])
        default: return nil
        }
    }
}
