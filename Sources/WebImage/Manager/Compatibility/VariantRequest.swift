import Foundation

/// What ``ImageManager/loadVariant(_:options:context:)`` makes: the source, the
/// transformer(s) and the output encoding of one encoded variant.
public struct VariantRequest: Sendable {
    /// The source image.
    public var url: URL
    /// What is done to the decoded source (a ``TransformerPipeline`` for several steps);
    /// `nil` re-encodes it as it is. Animations are transformed frame by frame.
    public var transformer: (any ImageTransformer)?
    /// Decode the source within this size (aspect ratio kept, never enlarged), with
    /// shrink-on-load; `nil` lets the transformer say how small the source may be decoded
    /// (``ImageTransformer/shrinkOnLoadSize(forSourceSize:)``), else decodes full size.
    public var thumbnailPixelSize: PixelSize?
    /// The output format and encoder settings.
    public var encoding: VariantEncoding
    /// Serve the source's bytes as they are: no decode, no transform, no encode (its
    /// header is still read and checked against the limits). ``transformer`` and
    /// ``encoding`` are then ignored.
    public var passthrough: Bool
    /// Serve the source's bytes as they are (as ``passthrough`` does) when its format,
    /// read from its header, is one of these.
    public var passthroughFormats: Set<ImageFormat>
    /// Read a HEIC, HEIF or AVIF source from the thumbnail embedded in it, when it has one
    /// (``ImageDecodeOptions/preferEmbeddedThumbnail``); no shrink-on-load is asked for then.
    public var preferEmbeddedThumbnail: Bool
    /// What is made: the encoded image (default), the source's details, or a ThumbHash.
    public var output: VariantOutput
    /// How far a JPEG source shrinks in libjpeg on its way to a smaller decode
    /// (``ImageProcessing/jpegShrink``).
    public var jpegShrink: ImageDecodeOptions.JPEGShrink = .leavingResample

    /// Creates a request.
    public init(
        url: URL,
        transformer: (any ImageTransformer)? = nil,
        thumbnailPixelSize: PixelSize? = nil,
        encoding: VariantEncoding = VariantEncoding(),
        passthrough: Bool = false,
        passthroughFormats: Set<ImageFormat> = [],
        preferEmbeddedThumbnail: Bool = false,
        output: VariantOutput = .image
    ) {
        self.output = output
        self.url = url
        self.transformer = transformer
        self.thumbnailPixelSize = thumbnailPixelSize
        self.encoding = encoding
        self.passthrough = passthrough
        self.passthroughFormats = passthroughFormats
        self.preferEmbeddedThumbnail = preferEmbeddedThumbnail
    }

    /// What the request asks for, without the source: the part of the variant's cache key
    /// after the source's key, e.g. `variant(resize-fill-400x300-ce;f:webp,q:80)`
    /// (``ImageRequest/variantKeyPart``).
    public var variantKey: String {
        ImageRequest(url: url, processing: processing, output: imageOutput).variantKeyPart ?? ""
    }

    /// What is done to the source: the transformer (frame by frame for an animation) and
    /// the thumbnail size; nothing for a passthrough or details.
    var processing: ImageProcessing {
        if passthrough { return .none }
        if case .details = output { return .none }
        var processing = ImageProcessing(
            thumbnailPixelSize: thumbnailPixelSize, transformer: transformer, preferEmbeddedThumbnail: preferEmbeddedThumbnail
        )
        processing.jpegShrink = jpegShrink
        return processing
    }

    /// The output it asks for.
    var imageOutput: ImageOutput {
        switch output {
        case .image:
            if passthrough { return .encoded(encoding, passthrough: .always) }
            return .encoded(encoding, passthrough: passthroughFormats.isEmpty ? .never : .formats(passthroughFormats))
        case .details(let includeGPS):
            return .details(includeGPS: includeGPS)
        case .thumbHash:
            return .thumbHash
        }
    }
}
