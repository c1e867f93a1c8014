import CVips

/// Turns the image grey (libvips' sRGB → B_W conversion), keeping alpha. A grey image is
/// returned as it is.
///
/// Key: `grayscale`.
public struct GrayscaleTransformer: ImageTransformer {
    /// Creates a grayscale transformer.
    public init() {}

    /// `grayscale`.
    public var key: String { "grayscale" }

    /// Converts the image to grey, keeping alpha; a grey image is returned as it is.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        if VipsTransform.isGrey(image.handle) { return image }
        return try image.transformingPixels { strip throws(ImageError) in
            try Vips.run("converting to grey", failure: .invalidTransform) { wi_colourspace(strip.pointer, $0, Int32(VIPS_INTERPRETATION_B_W.rawValue)) }
        }
    }
}
