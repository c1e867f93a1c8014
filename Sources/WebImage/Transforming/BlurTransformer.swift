import CVips

/// A Gaussian blur (`vips_gaussblur`) of standard deviation `sigma` pixels; alpha is
/// premultiplied while blurring so transparent pixels lend no colour. Each frame of an
/// animation is blurred on its own.
///
/// A blur wider than ``directSigmaLimit`` is made at a smaller scale: the frame shrunk so
/// that the blur is ``directSigmaLimit`` / 2 there, blurred, and enlarged back to its size.
/// Such a blur keeps no detail that the shrink drops, and its work no longer grows with
/// the sigma: a direct blur of sigma 1000 on an 8-megapixel photo runs a
/// 3,700-tap mask over every pixel, twice.
///
/// Key: `blur-<sigma>`, e.g. `blur-2`, `blur-0p5`.
public struct BlurTransformer: ImageTransformer {
    /// The standard deviation of the Gaussian, in pixels; more than 0.
    public let sigma: Double

    /// The widest blur made directly at the frame's own scale.
    public static let directSigmaLimit = 20.0

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
            try Vips.premultiplied(frame, failure: .invalidTransform) { pixels throws(ImageError) in
                try Self.blurred(pixels, sigma: sigma, directLimit: Self.directSigmaLimit)
            }
        }
    }

    /// `pixels` blurred by `sigma`: directly up to `directLimit`, else at a smaller scale.
    static func blurred(_ pixels: VipsImageHandle, sigma: Double, directLimit: Double) throws(ImageError) -> VipsImageHandle {
        guard sigma > directLimit else {
            return try Vips.run("blurring", failure: .invalidTransform) { wi_gaussblur(pixels.pointer, $0, sigma) }
        }
        let (width, height) = (pixels.width, pixels.height)
        let factor = sigma / (directLimit / 2)
        let smallWidth = max(1, Int((Double(width) / factor).rounded()))
        let smallHeight = max(1, Int((Double(height) / factor).rounded()))
        let (across, down) = (Double(smallWidth) / Double(width), Double(smallHeight) / Double(height))
        let small = try Vips.run("shrinking for a wide blur", failure: .invalidTransform) { wi_resize(pixels.pointer, $0, across, down) }
        let smallSigma = sigma * (across + down) / 2
        let blurred = try Vips.run("blurring", failure: .invalidTransform) { wi_gaussblur(small.pointer, $0, smallSigma) }
        var back = try Vips.run("enlarging a wide blur", failure: .invalidTransform) {
            wi_resize(blurred.pointer, $0, Double(width) / Double(blurred.width), Double(height) / Double(blurred.height))
        }
        // The resize rounds each side: a pixel over is cut, a pixel short is mirrored in.
        if back.width > width || back.height > height {
            back = try VipsTransform.extract(back, PixelRect(x: 0, y: 0, width: min(width, back.width), height: min(height, back.height)))
        }
        if back.width < width || back.height < height {
            let short = back
            back = try Vips.run("filling a wide blur's edge", failure: .invalidTransform) {
                wi_embed_mirror(short.pointer, $0, 0, 0, Int32(width), Int32(height))
            }
        }
        return back
    }
}
