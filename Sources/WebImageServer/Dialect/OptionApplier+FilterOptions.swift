import WebImage

extension OptionApplier {
    /// Largest `trim` threshold: beyond the distance between any two colours.
    static let maxTrimThreshold = 1000.0

    /// `trim`, `pixelate`, `watermark`.
    func applyFilterOption(_ option: ProcessingOptionName, _ segment: OptionSegment, to options: inout ProcessingOptions, usage: String) throws(ProxyError) {
        switch option {
        case .trim:
            try segment.requireCount(1...4, usage: usage)
            options.trim = try trim(segment, usage: usage)
        case .pixelate:
            try segment.requireCount(1...1, usage: usage)
            let size = try segment.integer(0, "pixelate size", in: 0...Self.maxSide, usage: usage)
            options.pixelate = size > 1 ? size : nil
        case .watermark:
            try segment.requireCount(1...5, usage: usage)
            options.watermark = try watermark(segment, current: options.watermark, usage: usage)
        default:
            preconditionFailure("\(option) is not a filter option")
        }
    }

    /// An empty threshold turns trimming off.
    private func trim(_ segment: OptionSegment, usage: String) throws(ProxyError) -> TrimOption? {
        guard segment.optional(0) != nil else { return nil }
        var trim = TrimOption(threshold: try segment.decimal(0, "trim threshold", in: 0...Self.maxTrimThreshold, usage: usage))
        if let hex = segment.optional(1) {
            guard let color = Self.color(hex: hex) else {
                throw segment.error("'\(hex.prefix(32))' is not a hex colour (3 or 6 hex digits)", usage: usage)
            }
            trim.color = color
        }
        if segment.optional(2) != nil { trim.equalHorizontal = boolean(segment, 2, "equal horizontal") }
        if segment.optional(3) != nil { trim.equalVertical = boolean(segment, 3, "equal vertical") }
        return trim
    }

    /// Opacity first (0 turns the watermark off); empty later arguments keep the values
    /// an earlier `watermark` option set.
    private func watermark(_ segment: OptionSegment, current: WatermarkOption?, usage: String) throws(ProxyError) -> WatermarkOption? {
        let opacity = try segment.decimal(0, "watermark opacity", in: 0...1, usage: usage)
        var mark = current ?? WatermarkOption(opacity: opacity)
        mark.opacity = opacity
        if let name = segment.optional(1) {
            guard let position = WatermarkPosition(name: name) else {
                throw segment.error("unknown watermark position '\(name.prefix(32))'", usage: usage)
            }
            mark.position = position
        }
        let bound = Double(Self.maxSide)
        if segment.optional(2) != nil { mark.xOffset = try segment.decimal(2, "watermark x offset", in: -bound...bound, usage: usage) }
        if segment.optional(3) != nil { mark.yOffset = try segment.decimal(3, "watermark y offset", in: -bound...bound, usage: usage) }
        if segment.optional(4) != nil { mark.scale = try segment.decimal(4, "watermark scale", in: 0...Self.maxWatermarkScale, usage: usage) }
        return opacity > 0 ? mark : nil
    }
}
