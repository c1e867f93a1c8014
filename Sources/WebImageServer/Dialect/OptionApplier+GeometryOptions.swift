extension OptionApplier {

    /// `min-width`, `min-height`, `zoom`, `extend_aspect_ratio`, `auto_rotate`, `flip`.
    func applyGeometryOption(_ option: ProcessingOptionName, _ segment: OptionSegment, to options: inout ProcessingOptions, usage: String) throws(ProxyError) {
        switch option {
        case .minWidth:
            try segment.requireCount(1...1, usage: usage)
            options.minWidth = try segment.integer(0, "minimum width", in: 0...Self.maxSide, usage: usage)
        case .minHeight:
            try segment.requireCount(1...1, usage: usage)
            options.minHeight = try segment.integer(0, "minimum height", in: 0...Self.maxSide, usage: usage)
        case .zoom:
            // One factor zooms both ways.
            try segment.requireCount(1...2, usage: usage)
            let horizontal = try zoomFactor(segment, 0, usage: usage)
            options.zoomWidth = horizontal
            options.zoomHeight = segment.arguments.count > 1 ? try zoomFactor(segment, 1, usage: usage) : horizontal
        case .extendAspectRatio:
            try segment.requireCount(1...4, usage: usage)
            options.extendAspectRatio = boolean(segment, 0, "extend aspect ratio")
            if segment.arguments.count > 1 {
                options.extendAspectRatioGravity = try gravity(
                    segment, from: 1, current: options.extendAspectRatioGravity, allowSmart: false, usage: usage
                )
            }
        case .autoRotate:
            try segment.requireCount(1...1, usage: usage)
            options.autoRotate = boolean(segment, 0, "auto rotate")
        case .flip:
            // Empty arguments keep the current value, as in imgproxy.
            try segment.requireCount(1...2, usage: usage)
            if segment.optional(0) != nil { options.flipHorizontal = boolean(segment, 0, "horizontal flip") }
            if segment.optional(1) != nil { options.flipVertical = boolean(segment, 1, "vertical flip") }
        default:
            preconditionFailure("\(option) is not a geometry option")
        }
    }

    private func zoomFactor(_ segment: OptionSegment, _ index: Int, usage: String) throws(ProxyError) -> Double {
        let factor = try segment.decimal(index, "zoom factor", in: 0...Self.maxFactor, usage: usage)
        guard factor > 0 else { throw segment.error("the zoom factor must be greater than 0", usage: usage) }
        return factor
    }
}
