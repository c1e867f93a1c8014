/// What an ``ImageRequest`` hands back.
///
/// ``image`` and ``data`` come from ``ImageManager/loadImage(_:progress:)`` as an ``ImageResult``;
/// the encoded outputs (``encoded(_:passthrough:)``, ``details(includeGPS:)``,
/// ``thumbHash``) from ``ImageManager/loadVariant(_:)`` as a ``VariantResult``, cached in
/// memory and on disk as bytes and made once for every request that asks at once.
public enum ImageOutput: Sendable, Hashable {
    /// The decoded (and processed) image.
    case image
    /// The source's bytes, checked to be an image within the limits from its header but
    /// not decoded (SDWebImage's `avoidDecodeImage`): ``ImageResult/image`` is `nil`.
    case data
    /// The processed image encoded as `encoding` says; `passthrough` serves the source's
    /// bytes as they are instead, always or for some source formats.
    case encoded(VariantEncoding, passthrough: VariantPassthrough = .never)
    /// The source's ``ImageDetails`` as JSON; the EXIF position only with `includeGPS`.
    case details(includeGPS: Bool)
    /// The ThumbHash of the processed image (its first frame), as its base64 text (UTF-8).
    case thumbHash

    /// Whether the output is a decoded image or the source's bytes (``ImageManager/loadImage(_:progress:)``),
    /// rather than bytes made for serving (``ImageManager/loadVariant(_:)``).
    public var isImage: Bool {
        switch self {
        case .image, .data: true
        case .encoded, .details, .thumbHash: false
        }
    }
}

/// When an encoded output is the source's own bytes instead: no decode, transform or
/// encode (the source's header is still read and checked against the limits).
public enum VariantPassthrough: Sendable, Hashable {
    /// Always make the output.
    case never
    /// Always serve the source's bytes.
    case always
    /// Serve the source's bytes when its format, read from its header, is one of these.
    case formats(Set<ImageFormat>)
}
