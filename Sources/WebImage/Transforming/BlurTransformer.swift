import CVips

/// A Gaussian blur (`vips_gaussblur`) of standard deviation `sigma` pixels; alpha is
/// premultiplied while blurring so transparent pixels lend no colour. Each frame of an
/// animation is blurred on its own.
///
/// Key: `blur-<sigma>`, e.g. `blur-2`, `blur-0p5`.
public struct BlurTransformer: ImageTransformer {
    /// The standard deviation of the Gaussian, in pixels; more than 0.
    public let sigma: Double

    /// Creates a blur of `sigma` pixels.
    public init(sigma: Double) {
        self.sigma = sigma
    }

    /// `blur-` and ``sigma``, e.g. `blur-0p5`.
    public var key: String { "blur-\(TransformKey.number(sigma))" }

    /// Blurs each frame by ``sigma`` pixels; a sigma that is not a number above 0 fails with
    /// ``ImageError/invalidTransform(_:)``.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        guard sigma.isFinite, sigma > 0 else {
            throw .invalidTransform("blur sigma \(sigma) must be a number above 0 (the blur radius in pixels, e.g. 2)")
        }
        let sigma = self.sigma
        return try image.transformingFrames { frame throws(ImageError) in
            try VipsTransform.premultiplied(frame) { pixels throws(ImageError) in
                try Vips.run("blurring", failure: .invalidTransform) { wi_gaussblur(pixels.pointer, $0, sigma) }
            }
        }
    }
}
