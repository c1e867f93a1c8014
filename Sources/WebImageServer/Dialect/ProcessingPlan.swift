import WebImage

/// What the server does with one source image for one ``ProcessingOptions``: the expected
/// output size and the encoder settings. Made by ``ProcessingOptions/plan(for:)``.
public struct ProcessingPlan: Sendable {
    /// The size of the processed image.
    public var outputSize: PixelSize
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
    public var isIdentity: Bool

    let geometry: ProcessingGeometry

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
