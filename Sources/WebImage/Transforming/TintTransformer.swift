import CVips

/// Tints the image with a colour, as SDWebImage's tint transformer does: the colour is
/// blended over every pixel by its own alpha (an opaque colour paints the image flat, a
/// half-transparent one mixes half and half), and the image's alpha is kept, so its shape
/// stays. A colour tint turns a grey image into RGB.
///
/// Key: `tint-<rrggbbaa>`, e.g. `tint-ff000080`.
public struct TintTransformer: ImageTransformer {
    /// The tint colour; its alpha is the strength of the tint.
    public let color: ImageColor

    /// Creates a tint with `color`.
    public init(color: ImageColor) {
        self.color = color
    }

    /// `tint-` and ``color`` as `rrggbbaa`.
    public var key: String { "tint-\(color.hex)" }

    /// Blends ``color`` over every pixel by the colour's alpha, keeping the image's alpha; a
    /// fully transparent colour returns the image as it is.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        let color = self.color
        if color.alpha == 0 { return image }
        return try image.transformingPixels { strip throws(ImageError) in
            let prepared = try VipsTransform.prepare(strip, for: color, addAlpha: false)
            // out = in × (1 − a) + colour × a on the colour bands; alpha passes through.
            let strength = Double(color.alpha) / 255
            let colour = VipsTransform.colourValues(of: color, for: prepared)
            var multipliers = [Double](repeating: 1 - strength, count: colour.count)
            var offsets = colour.map { $0 * strength }
            if prepared.hasAlpha {
                multipliers.append(1)
                offsets.append(0)
            }
            return try Vips.run("tinting", failure: .invalidTransform) { out in
                multipliers.withUnsafeBufferPointer { a in
                    offsets.withUnsafeBufferPointer { b in
                        wi_linear_uchar(prepared.pointer, out, a.baseAddress, b.baseAddress, Int32(a.count))
                    }
                }
            }
        }
    }
}
