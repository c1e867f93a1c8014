import CVips

/// Sharpens the image with libvips' unsharp mask on lightness (`vips_sharpen`), `sigma`
/// pixels wide. Each frame of an animation is sharpened on its own.
///
/// Key: `sharpen-<sigma>`, e.g. `sharpen-1p5`.
public struct SharpenTransformer: ImageTransformer {
    /// The standard deviation of the mask's Gaussian, in pixels; more than 0 (0.5–2 is usual).
    public let sigma: Double

    /// Creates a sharpen of `sigma` pixels.
    public init(sigma: Double) {
        self.sigma = sigma
    }

    /// `sharpen-` and ``sigma``, e.g. `sharpen-1p5`.
    public var key: String { "sharpen-\(TransformKey.number(sigma))" }

    /// Sharpens each frame with a mask ``sigma`` pixels wide; a sigma that is not a number
    /// above 0 fails with ``ImageError/invalidTransform(_:)``.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        guard sigma.isFinite, sigma > 0 else {
            throw .invalidTransform("sharpen sigma \(sigma) must be a number above 0 (the mask radius in pixels, e.g. 1)")
        }
        let sigma = self.sigma
        return try image.transformingFrames { frame throws(ImageError) in
            try Vips.run("sharpening", failure: .invalidTransform) { wi_sharpen(frame.pointer, $0, sigma) }
        }
    }
}
