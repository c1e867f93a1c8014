/// The kind of picture libwebp tunes its lossy encoder for (libvips' `VipsForeignWebpPreset`):
/// the filter strength, sharpness and segment settings it starts from.
public enum WebPPreset: String, Sendable, Hashable, CaseIterable {
    /// libwebp's general-purpose settings.
    case `default`
    /// A digital picture, such as a portrait or an indoor shot.
    case picture
    /// An outdoor photograph with natural lighting.
    case photo
    /// A hand or line drawing, with high-contrast details.
    case drawing
    /// A small, colourful image.
    case icon
    /// Text-like content.
    case text

    /// libvips' `VipsForeignWebpPreset` value.
    var vipsValue: Int32 {
        switch self {
        case .default: 0
        case .picture: 1
        case .photo: 2
        case .drawing: 3
        case .icon: 4
        case .text: 5
        }
    }
}
