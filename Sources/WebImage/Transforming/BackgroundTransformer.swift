import CVips

/// Puts the image on a background colour: an opaque colour flattens the alpha channel
/// away (`vips_flatten`); a translucent one is composited under the image, which keeps
/// its alpha. An image without alpha is returned as it is; a colour background turns a
/// grey image into RGB.
///
/// Key: `background-<rrggbbaa>`, e.g. `background-ffffffff`.
public struct BackgroundTransformer: ImageTransformer {
    /// The background colour.
    public let color: ImageColor

    /// Creates a background of `color`.
    public init(color: ImageColor) {
        self.color = color
    }

    /// `background-` and ``color`` as `rrggbbaa`.
    public var key: String { "background-\(color.hex)" }

    /// Flattens the image onto ``color`` when it is opaque, else composites it over ``color``;
    /// an image without alpha is returned as it is.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        guard image.hasAlpha else { return image }
        let color = self.color
        return try image.transformingPixels { strip throws(ImageError) in
            let prepared = try VipsTransform.prepare(strip, for: color, addAlpha: false)
            if color.isOpaque {
                let values = VipsTransform.colourValues(of: color, for: prepared)
                return try Vips.run("flattening onto \(color)", failure: .invalidTransform) { out in
                    values.withUnsafeBufferPointer { wi_flatten_background(prepared.pointer, out, $0.baseAddress, Int32($0.count)) }
                }
            }
            let base = try VipsTransform.constant(like: prepared, values: VipsTransform.values(of: color, for: prepared))
            return try Vips.run("compositing onto \(color)", failure: .invalidTransform) { wi_composite_over(base.pointer, prepared.pointer, $0) }
        }
    }
}
