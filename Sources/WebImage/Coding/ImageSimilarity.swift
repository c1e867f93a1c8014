import CVips

/// How alike two images look, for choosing an encoder quality (``QualitySearch``) and for
/// checking an encoder's output against what it was given.
public enum ImageSimilarity {
    /// The mean structural similarity (SSIM, Wang et al. 2004) of the two images' luma
    /// (Rec. 601 weights on the 8-bit values; Gaussian window of sigma 1.5):
    /// 1 for identical pixels, lower as structure is lost. Alpha is flattened onto white
    /// first; an animation is compared over all its frames.
    ///
    /// - Throws: ``ImageError/invalidTransform(_:)`` when the images differ in size or
    ///   frame count.
    public static func ssim(_ reference: Image, _ candidate: Image) throws(ImageError) -> Double {
        try Vips.start()
        guard reference.pixelSize == candidate.pixelSize, reference.frameCount == candidate.frameCount else {
            throw .invalidTransform(
                "SSIM compares images of one size: \(reference.pixelSize) × \(reference.frameCount) frame(s) against \(candidate.pixelSize) × \(candidate.frameCount)"
            )
        }
        var score = 0.0
        guard wi_ssim(reference.handle.pointer, candidate.handle.pointer, &score) == 0 else {
            throw .invalidTransform("SSIM failed in libvips: \(Vips.takeError())")
        }
        return score
    }
}
