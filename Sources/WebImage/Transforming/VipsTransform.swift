import CVips

/// The libvips building blocks the built-in transformers share.
///
/// Every helper takes and returns ``VipsImageHandle``s of lazy libvips images; the
/// pixels are computed once, when ``Image`` finishes the result in memory.
enum VipsTransform {
    /// The most pixels (width × height × frames) a transform may produce: twice the default
    /// decode limit, so that any image WebImage decodes by default can still be rotated or
    /// padded, while an accidental `enlarge` to 100 000 × 100 000 fails at once.
    static let maxOutputPixels = 2 * ImageLimits.default.maxPixels

    /// Throws when a result of `size` a frame, `frames` frames, would exceed ``maxOutputPixels``.
    static func checkOutput(_ size: PixelSize, frames: Int, by what: String) throws(ImageError) {
        let perFrame = size.width.multipliedReportingOverflow(by: size.height)
        let total = perFrame.partialValue.multipliedReportingOverflow(by: max(1, frames))
        if size.width > Int(VIPS_MAX_COORD) || size.height > Int(VIPS_MAX_COORD) || perFrame.overflow || total.overflow
            || total.partialValue > maxOutputPixels {
            throw .invalidTransform(
                "\(what) would make a \(size) image (\(frames) frame(s)), more than the \(maxOutputPixels) pixels a transform may produce; ask for a smaller size"
            )
        }
    }

    /// Whether the image is grey (1 band, or grey + alpha).
    static func isGrey(_ image: VipsImageHandle) -> Bool { image.bands <= 2 }

    /// Readies `image` to take `colour`: grey becomes sRGB when the colour is not grey, and
    /// an alpha channel (opaque) is added when `addAlpha` is set and the image has none.
    static func prepare(_ image: VipsImageHandle, for colour: ImageColor, addAlpha: Bool) throws(ImageError) -> VipsImageHandle {
        var result = image
        if isGrey(result), !colour.isGrey {
            let grey = result
            result = try Vips.run("converting grey to sRGB", failure: .invalidTransform) { wi_colourspace(grey.pointer, $0, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
        }
        if addAlpha, !result.hasAlpha {
            let opaque = result
            result = try Vips.run("adding an alpha channel", failure: .invalidTransform) { wi_bandjoin_const1(opaque.pointer, $0, 255) }
        }
        return result
    }

    /// `colour` as one value a band of `image`: grey or RGB, then alpha if the image has it.
    static func values(of colour: ImageColor, for image: VipsImageHandle) -> [Double] {
        let colourBands: [Double] = isGrey(image)
            ? [Double(colour.red)]
            : [Double(colour.red), Double(colour.green), Double(colour.blue)]
        return image.hasAlpha ? colourBands + [Double(colour.alpha)] : colourBands
    }

    /// `colour` without alpha, as one value a colour band of `image`.
    static func colourValues(of colour: ImageColor, for image: VipsImageHandle) -> [Double] {
        isGrey(image) ? [Double(colour.red)] : [Double(colour.red), Double(colour.green), Double(colour.blue)]
    }

    /// A lazy image of `image`'s size, format and interpretation whose every pixel is `values`.
    static func constant(like image: VipsImageHandle, values: [Double]) throws(ImageError) -> VipsImageHandle {
        guard let pointer = values.withUnsafeBufferPointer({ wi_constant_like(image.pointer, $0.baseAddress, Int32($0.count)) }) else {
            throw .invalidTransform("cannot make a constant image: \(Vips.takeError())")
        }
        return VipsImageHandle(pointer)
    }

    /// The colour bands of `image` and its alpha band (`nil` without alpha).
    static func splitAlpha(_ image: VipsImageHandle) throws(ImageError) -> (colour: VipsImageHandle, alpha: VipsImageHandle?) {
        guard image.hasAlpha else { return (image, nil) }
        let bands = Int32(image.bands)
        let colour = try Vips.run("extracting the colour bands", failure: .invalidTransform) { wi_extract_band(image.pointer, $0, 0, bands - 1) }
        let alpha = try Vips.run("extracting the alpha band", failure: .invalidTransform) { wi_extract_band(image.pointer, $0, bands - 1, 1) }
        return (colour, alpha)
    }

    static func join(_ first: VipsImageHandle, _ second: VipsImageHandle) throws(ImageError) -> VipsImageHandle {
        try Vips.run("joining bands", failure: .invalidTransform) { wi_bandjoin2(first.pointer, second.pointer, $0) }
    }

    /// Brings a result back to what every ``Image`` holds: 8-bit sRGB or 8-bit grey.
    static func normalise(_ image: VipsImageHandle) throws(ImageError) -> VipsImageHandle {
        var result = image
        let interpretation = wi_interpretation(result.pointer)
        if interpretation != Int32(VIPS_INTERPRETATION_sRGB.rawValue), interpretation != Int32(VIPS_INTERPRETATION_B_W.rawValue) {
            let source = result
            let target = isGrey(source) ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
            result = try Vips.run("converting to \(isGrey(source) ? "grey" : "sRGB")", failure: .invalidTransform) { wi_colourspace(source.pointer, $0, Int32(target.rawValue)) }
        }
        if wi_band_format(result.pointer) != Int32(VIPS_FORMAT_UCHAR.rawValue) {
            let source = result
            result = try Vips.run("casting to 8 bits", failure: .invalidTransform) { wi_cast_uchar(source.pointer, $0) }
        }
        return result
    }

    /// A region of `image`; lazy, so it costs nothing until the result is computed.
    static func extract(_ image: VipsImageHandle, _ rect: PixelRect) throws(ImageError) -> VipsImageHandle {
        if rect.x == 0, rect.y == 0, rect.width == image.width, rect.height == image.height { return image }
        return try Vips.run("cropping to \(rect)", failure: .invalidTransform) {
            wi_extract_area(image.pointer, $0, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height))
        }
    }
}
