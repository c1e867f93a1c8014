import Foundation

/// The outcome of one encode whose quality may have been chosen by ``QualitySearch``.
public struct EncodeChoice: Sendable {
    /// The encoded bytes.
    public let data: Data
    /// The format written.
    public let format: ImageFormat
    /// The encoder quality used; `nil` for formats without one (PNG, GIF, TIFF, lossless)
    /// and when a file-size limit lowered the chosen quality inside the coder.
    public let quality: Int?
    /// The SSIM of the result against the image encoded, when it was measured.
    public let score: Double?
    /// How many encodes it took.
    public let encodes: Int

    /// Creates an outcome.
    public init(data: Data, format: ImageFormat, quality: Int?, score: Double?, encodes: Int) {
        self.data = data
        self.format = format
        self.quality = quality
        self.score = score
        self.encodes = encodes
    }
}

/// Encodes an image at the lowest quality that keeps an ``AutoQuality`` target.
///
/// The search encodes at the top of the range first: when even that misses the target,
/// it is the answer. Otherwise it bisects the rest of the range, decoding each candidate
/// and measuring its SSIM against the image, until the budget of encodes is spent or the
/// range is narrowed to one quality; the lowest quality that met the target wins. The
/// search also stops when the encodes the manager allows one output are spent
/// (``ImageManager/maxEncodesPerOutput``).
public enum QualitySearch {
    /// Whether auto quality applies to `options`: a lossy, still encode.
    public static func applies(to image: Image, options: ImageEncodeOptions) -> Bool {
        [.jpeg, .webp, .avif, .heic].contains(options.format) && !options.lossless && image.frameCount == 1
    }

    /// Encodes `image` with `options`, its quality chosen by `auto` where that applies
    /// (``applies(to:options:)``); otherwise one encode at `options.quality`. A
    /// ``ImageEncodeOptions/maxFileSize`` is honoured after the search, lowering the
    /// quality further when the chosen result is too large.
    public static func encode(
        _ image: Image, options: ImageEncodeOptions, auto: AutoQuality?, coder: any ImageCoder
    ) throws(ImageError) -> EncodeChoice {
        guard let auto, applies(to: image, options: options) else {
            let data = try coder.encode(image, options: options)
            let lossy = [.jpeg, .webp, .avif, .heic].contains(options.format) && !options.lossless
            return EncodeChoice(data: data, format: options.format, quality: lossy ? options.quality : nil, score: nil, encodes: 1)
        }
        var trial = options
        trial.maxFileSize = nil
        // The candidates are this encoder's own output, as large as the image: the source
        // limits are not theirs to meet.
        let pixels = image.pixelSize.width * image.pixelSize.height
        let readBack = ImageDecodeOptions(limits: ImageLimits(maxPixels: max(pixels, ImageLimits.default.maxPixels)))
        var encodes = 0
        func attempt(_ quality: Int) throws(ImageError) -> (data: Data, score: Double) {
            trial.quality = quality
            let data = try coder.encode(image, options: trial)
            encodes += 1
            let decoded = try coder.decode(data, options: readBack)
            return (data, try ImageSimilarity.ssim(image, decoded))
        }
        let top = auto.qualities.upperBound
        var best = (quality: top, result: try attempt(top))
        if best.result.score >= auto.target {
            var low = auto.qualities.lowerBound, high = top - 1
            while low <= high, encodes < auto.maxEncodes, EncodeAllowance.currentHasLeft {
                let middle = (low + high) / 2
                let result = try attempt(middle)
                if result.score >= auto.target {
                    best = (middle, result)
                    high = middle - 1
                } else {
                    low = middle + 1
                }
            }
        }
        if let maxBytes = options.maxFileSize, best.result.data.count > maxBytes {
            // The work's encodes are spent: no quality below the chosen one can be tried.
            guard EncodeAllowance.currentHasLeft else {
                throw .fileSizeLimitUnreachable(maxBytes: maxBytes, smallest: best.result.data.count)
            }
            var capped = options
            capped.quality = best.quality
            let data = try coder.encode(image, options: capped)
            encodes += 1
            let score = try ImageSimilarity.ssim(image, try coder.decode(data, options: readBack))
            return EncodeChoice(data: data, format: options.format, quality: nil, score: score, encodes: encodes)
        }
        return EncodeChoice(
            data: best.result.data, format: options.format, quality: best.quality, score: best.result.score, encodes: encodes
        )
    }
}
