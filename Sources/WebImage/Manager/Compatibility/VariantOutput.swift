/// What a ``VariantRequest`` makes from its source: an encoded image, or facts about it.
/// Whatever it is, it is cached, coalesced and limited like any variant.
public enum VariantOutput: Sendable, Hashable {
    /// The transformed image, encoded as the request's ``VariantRequest/encoding`` says.
    case image
    /// The source's ``ImageDetails`` as JSON (the transformer and encoding are not used);
    /// the EXIF position only with `includeGPS`.
    case details(includeGPS: Bool)
    /// The ThumbHash of the transformed image, as its base64 text (UTF-8).
    case thumbHash

    /// The part of the variant key that names the output; empty for ``image``.
    var key: String {
        switch self {
        case .image: ""
        case .details(let includeGPS): includeGPS ? "details+gps" : "details"
        case .thumbHash: "thumbhash"
        }
    }
}
