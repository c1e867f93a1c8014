extension ImageEncodeOptions {
    /// Checks the encoder settings that have a range; throws
    /// ``ImageError/invalidRequest(field:reason:)`` naming the first outside it, e.g.
    /// `ImageEncodeOptions.webpEffort`. ``ImageCoder/encode(_:options:)`` of ``VipsCoder``
    /// calls it before encoding.
    public func validate() throws(ImageError) {
        if let problem = outOfRange() {
            throw .invalidRequest(field: "ImageEncodeOptions." + problem.field, reason: problem.reason)
        }
    }

    /// The first of these settings outside its range, by its property name, with the range.
    func outOfRange() -> (field: String, reason: String)? {
        if let colors = pngPaletteColors, !(2...256).contains(colors) {
            return ("pngPaletteColors", "must be 2…256 colours, or nil for full colour, not \(colors)")
        }
        if !(0...6).contains(webpEffort) { return ("webpEffort", "must be 0 (fastest) to 6 (smallest), not \(webpEffort)") }
        if !(0...9).contains(avifEffort) { return ("avifEffort", "must be 0 (fastest) to 9 (smallest), not \(avifEffort)") }
        if !(1...9).contains(jxlEffort) { return ("jxlEffort", "must be 1 (fastest) to 9 (smallest), not \(jxlEffort)") }
        return nil
    }

    /// The palette's bits an entry for ``pngPaletteColors``: the fewest of 1, 2, 4 and 8
    /// that hold that many colours.
    static func paletteBitDepth(colors: Int) -> Int32 {
        switch colors {
        case ...2: 1
        case ...4: 2
        case ...16: 4
        default: 8
        }
    }
}
