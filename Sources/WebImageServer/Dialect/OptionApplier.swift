import WebImage

/// Applies option segments to ``ProcessingOptions`` in URL order, expanding presets.
struct OptionApplier: Sendable {
    /// Preset name → option string (`resize:fill:300:300/quality:80`).
    let presets: [String: String]
    /// Whether the security options (`max_src_resolution`…) may be used; else they are 403.
    var allowSecurityOptions = false
    /// What separates an option's name and arguments (imgproxy's `IMGPROXY_ARGUMENTS_SEPARATOR`).
    var argumentsSeparator: Unicode.Scalar = ":"
    /// Where the lenient readings of this parse are recorded; `nil`: nowhere.
    var warnings: ParseWarnings?

    /// Largest accepted width, height, crop size, padding or pixel offset: libvips' own bound
    /// on an image's side. imgproxy reads any number; a result larger than the server's
    /// largest result side is scaled down to it (``ProcessingGeometry``), as imgproxy scales it.
    static let maxSide = ServerProfile.unboundedResultDimension
    /// Largest `dpr` and `zoom` factor. imgproxy reads any positive number; this bound keeps a
    /// side times its factors within integer range. The result is scaled down to the
    /// largest result side all the same.
    static let maxFactor = 1000.0
    /// Largest `blur` sigma. imgproxy reads any number; past the image's size every larger
    /// sigma gives the same flat image, and a wide blur costs no more than a narrow one
    /// (``BlurTransformer``).
    static let maxBlurSigma = 100_000.0
    /// Largest watermark scale (a multiple of the image's size). imgproxy reads any positive
    /// number; only the part of a mark over the image is made (``WatermarkTransformer``).
    static let maxWatermarkScale = 100.0

    /// How deep presets may nest; a preset already being expanded is skipped, as imgproxy does.
    static let maxPresetDepth = 8
    /// Largest `max_bytes`: 1 GiB.
    static let maxBytesLimit = 1 << 30

    /// The boolean argument `index` of `segment` (``OptionSegment/boolean(_:_:warn:)``), a
    /// lenient reading recorded in ``warnings``.
    func boolean(_ segment: OptionSegment, _ index: Int, _ what: String) -> Bool {
        segment.boolean(index, what) { warnings?.add($0) }
    }

    /// Applies one `name:args…` segment.
    /// - Parameter presetChain: the presets being expanded, outermost first.
    func apply(_ text: Substring, to options: inout ProcessingOptions, presetChain: [String] = []) throws(ProxyError) {
        let segment = OptionSegment(text, separator: argumentsSeparator)
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
            options.width = try segment.integer(0, "width", in: 0...Self.maxSide, usage: usage)
        case .height:
            try segment.requireCount(1...1, usage: usage)
            options.height = try segment.integer(0, "height", in: 0...Self.maxSide, usage: usage)
        case .dpr:
            try segment.requireCount(1...1, usage: usage)
            let dpr = try segment.decimal(0, "dpr", in: 0...Self.maxFactor, usage: usage)
            guard dpr > 0 else { throw segment.error("dpr must be greater than 0", usage: usage) }
            options.dpr = dpr
        case .enlarge:
            try segment.requireCount(1...1, usage: usage)
            options.enlarge = boolean(segment, 0, "enlarge")
        case .extend:
            try segment.requireCount(1...4, usage: usage)
            try applyExtend(segment, from: 0, to: &options, usage: usage)
        case .gravity:
            try segment.requireCount(1...3, usage: usage)
            options.gravity = try gravity(segment, from: 0, current: options.gravity, allowSmart: true, usage: usage)
        case .crop:
            // A missing height or gravity keeps the current one, as in imgproxy.
            try segment.requireCount(1...5, usage: usage)
            let width = try segment.decimal(0, "crop width", in: 0...Double(Self.maxSide), usage: usage)
            let height = segment.arguments.count > 1
                ? try segment.decimal(1, "crop height", in: 0...Double(Self.maxSide), usage: usage)
                : options.crop?.height ?? 0
            let current = options.crop?.gravity
            let cropGravity = segment.arguments.count > 2
                ? try gravity(segment, from: 2, current: current ?? .center, allowSmart: true, usage: usage)
                : current
            options.crop = CropOption(width: width, height: height, gravity: cropGravity)
        case .padding:
            try segment.requireCount(1...4, usage: usage)
            options.padding = try padding(segment, current: options.padding, usage: usage)
        case .quality:
            if segment.arguments.first == "auto" {
                try segment.requireCount(1...2, usage: usage)
                options.quality = nil
                options.autoQuality = true
                options.autoQualityTarget = segment.optional(1) == nil
                    ? nil : try segment.decimal(1, "auto quality target", in: 0.5...0.9999, usage: usage)
            } else {
                try segment.requireCount(1...1, usage: usage)
                let quality = try segment.integer(0, "quality", in: 0...100, usage: usage)
                options.quality = quality == 0 ? nil : quality
                options.autoQuality = false
                options.autoQualityTarget = nil
            }
        case .maxBytes:
            try segment.requireCount(1...1, usage: usage)
            let bytes = try segment.integer(0, "max bytes", in: 0...Self.maxBytesLimit, usage: usage)
            options.maxBytes = bytes == 0 ? nil : bytes
        case .format:
            try segment.requireCount(1...1, usage: usage)
            switch segment.arguments[0] {
            case "best":
                (options.format, options.bestFormat, options.thumbHash) = (nil, true, false)
            case "thumbhash":
                (options.format, options.bestFormat, options.thumbHash) = (nil, false, true)
            default:
                options.format = try Self.outputFormat(segment.arguments[0], usage: usage, segment: segment)
                (options.bestFormat, options.thumbHash) = (false, false)
            }
        case .blur:
            try segment.requireCount(1...1, usage: usage)
            let sigma = try segment.decimal(0, "blur sigma", in: 0...Self.maxBlurSigma, usage: usage)
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
            options.stripMetadata = boolean(segment, 0, "strip metadata")
        case .gps:
            try segment.requireCount(1...1, usage: usage)
            options.includeGPS = boolean(segment, 0, "gps")
        case .cacheBuster:
            try segment.requireCount(1...1, usage: usage)
            let value = segment.arguments[0]
            options.cacheBuster = value.isEmpty ? nil : String(value)
        case .expires:
            // 0 or less: the URL never expires (imgproxy compares only positive times).
            try segment.requireCount(1...1, usage: usage)
            let expires = try segment.integer(0, "expiry time", in: -Int(Int64.max / 2)...Int(Int64.max / 2), usage: usage)
            options.expires = expires > 0 ? expires : nil
        case .raw:
            try segment.requireCount(1...1, usage: usage)
            options.raw = boolean(segment, 0, "raw")
        case .preserveHDR:
            try segment.requireCount(1...1, usage: usage)
            if boolean(segment, 0, "preserve HDR") {
                // libvips 8.14 decodes HDR sources to 16 bits, but WebImage's pipeline and
                // encoders work in 8 bits a channel: asking to keep HDR cannot be honoured.
                throw segment.error("high dynamic range cannot be kept: WebImage writes 8 bits a channel", usage: usage)
            }
        case .backgroundAlpha, .stripColorProfile, .keepCopyright, .enforceThumbnail, .formatQuality, .skipProcessing,
             .filename, .returnAttachment:
            try applyOutputOption(option, segment, to: &options, usage: usage)
        case .trim, .pixelate, .watermark:
            try applyFilterOption(option, segment, to: &options, usage: usage)
        case .maxSourceResolution, .maxSourceFileSize, .maxAnimationFrames, .maxAnimationFrameResolution, .maxResultDimension:
            try applySecurityOption(option, segment, to: &options, usage: usage)
        case .minWidth, .minHeight, .zoom, .extendAspectRatio, .autoRotate, .flip:
            try applyGeometryOption(option, segment, to: &options, usage: usage)
        case .preset:
            try segment.requireCount(1...64, usage: usage)
            for name in segment.arguments {
                try applyPreset(String(name), to: &options, chain: presetChain)
            }
        }
    }

    /// Expands a preset in place: its options apply where the `preset` option stands. A
    /// preset already in `chain` (the presets being expanded) is skipped, as imgproxy skips
    /// a recursive use, so presets referring to each other apply each once.
    func applyPreset(_ name: String, to options: inout ProcessingOptions, chain: [String] = []) throws(ProxyError) {
        guard let definition = presets[name] else {
            throw .badRequest("unknown preset '\(name.prefix(64))'; use one of the configured presets\(presets.isEmpty ? " (none are configured)" : ": " + presets.keys.sorted().joined(separator: ", "))")
        }
        if chain.contains(name) { return }
        guard chain.count < Self.maxPresetDepth else {
            throw .badRequest("preset '\(name.prefix(64))' nests presets more than \(Self.maxPresetDepth) deep; flatten the presets")
        }
        for part in Substring(definition).fields(separatedBy: "/") where !part.isEmpty {
            do throws(ProxyError) {
                try apply(part, to: &options, presetChain: chain + [name])
            } catch {
                // Say which preset holds the bad option: the URL itself looks fine.
                throw error.withMessage("in preset '\(name.prefix(64))': \(error.message)")
            }
        }
    }

    /// An output format named by an extension or `format` argument: a writable one, or
    /// `svg`, which an SVG source is served as (a raster source asked for as SVG is 422).
    static func outputFormat(_ name: Substring, usage: String, segment: OptionSegment?) throws(ProxyError) -> ImageFormat {
        guard let format = ImageFormat(name: String(name)), format.isWritable || format == .svg else {
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
            options.width = try segment.integer(first, "width", in: 0...Self.maxSide, usage: usage)
        }
        if segment.optional(first + 1) != nil {
            options.height = try segment.integer(first + 1, "height", in: 0...Self.maxSide, usage: usage)
        }
        if segment.optional(first + 2) != nil {
            options.enlarge = boolean(segment, first + 2, "enlarge")
        }
        if segment.optional(first + 3) != nil {
            try applyExtend(segment, from: first + 3, to: &options, usage: usage)
        }
    }

    /// CSS shorthand, as imgproxy reads it: an empty top keeps the current top; a missing
    /// or empty right copies the top, bottom the top, left the right; all zero is no padding.
    private func padding(_ segment: OptionSegment, current: ImagePadding?, usage: String) throws(ProxyError) -> ImagePadding? {
        func side(_ index: Int, _ name: String, else fallback: Int) throws(ProxyError) -> Int {
            guard segment.optional(index) != nil else { return fallback }
            return try segment.integer(index, "\(name) padding", in: 0...Self.maxSide, usage: usage)
        }
        let top = try side(0, "top", else: current?.top ?? 0)
        let right = try side(1, "right", else: top)
        let bottom = try side(2, "bottom", else: top)
        let left = try side(3, "left", else: right)
        guard top > 0 || right > 0 || bottom > 0 || left > 0 else { return nil }
        return ImagePadding(top: top, right: right, bottom: bottom, left: left)
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
