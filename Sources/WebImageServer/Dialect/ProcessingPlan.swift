import WebImage

/// What the server does with one source image for one ``ProcessingOptions``: the
/// transformers to run, the size they produce, and the encoder settings. Made by
/// `ProcessingOptions.plan(for:)`.
public struct ProcessingPlan: Sendable {
    /// The size of the processed image: what ``pipeline`` produces from the planned source.
    public var outputSize: PixelSize
    /// The transformers, in order: rotate, crop, resize, crop to the result, blur, sharpen, pixelate,
    /// extend, padding, flatten onto the background. Empty when nothing is to be done.
    public var pipeline: TransformerPipeline
    /// Encoder quality 1…100 the URL asked for; `nil` leaves it to the server's default.
    public var quality: Int?
    /// Largest encoded size in bytes the URL asked for.
    public var maxBytes: Int?
    /// The output format the URL asked for; `nil` lets the server choose (negotiation or
    /// the source's format).
    public var format: ImageFormat?
    /// Whether the output leaves out metadata; the URL's `strip_metadata`, else `true`
    /// (imgproxy's default).
    public var stripMetadata: Bool
    /// The colour transparent pixels are flattened onto (the pipeline already did so), and
    /// that a format without alpha (JPEG) composites onto.
    public var background: ImageColor?
    /// `true` when no pixel work is needed: the decoded image is already the output.
    public var isIdentity: Bool { pipeline.transformers.isEmpty }

    /// Encoder options for `format`, with the URL's quality (else `defaultQuality`),
    /// size limit, metadata choice and background colour (else white).
    public func encodeOptions(format: ImageFormat, defaultQuality: Int = 80) -> ImageEncodeOptions {
        ImageEncodeOptions(
            format: format,
            quality: quality ?? defaultQuality,
            maxFileSize: maxBytes,
            backgroundColor: background.map { ImageEncodeOptions.Color(red: Int($0.red), green: Int($0.green), blue: Int($0.blue)) } ?? .white,
            stripMetadata: stripMetadata
        )
    }
}
