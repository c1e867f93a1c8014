/// The format an encoded variant is written in: named, or chosen from the source.
public enum VariantFormat: Sendable, Hashable {
    /// Always this format (it must be one the coder can write).
    case fixed(ImageFormat)
    /// Decided once the source's header is read: the source's own format when it is in
    /// `preferred` and can be written; else the first of `preferred` that can carry the
    /// image (not JPEG for an image with alpha, GIF or WebP for an animation); else PNG for
    /// an image with alpha and JPEG without. imgproxy's rule for a URL without a format.
    case matchingSource(preferred: [ImageFormat])

    /// The source's format where possible, among JPEG, PNG, GIF and WebP.
    public static let matchingSource = VariantFormat.matchingSource(preferred: [.jpeg, .png, .gif, .webp])

    /// The format for a source of `sourceFormat`, with or without alpha, still or animated.
    public func resolve(sourceFormat: ImageFormat, hasAlpha: Bool, isAnimated: Bool) -> ImageFormat {
        switch self {
        case .fixed(let format):
            return format
        case .matchingSource(let preferred):
            if sourceFormat.isWritable, preferred.contains(sourceFormat), !isAnimated || sourceFormat.supportsAnimation {
                return sourceFormat
            }
            let suitable = preferred.first { format in
                format.isWritable && (!hasAlpha || format != .jpeg) && (!isAnimated || format.supportsAnimation)
            }
            return suitable ?? (hasAlpha ? .png : .jpeg)
        }
    }

    /// A stable name for keys: `webp`, or `source(jpeg,png)`.
    public var key: String {
        switch self {
        case .fixed(let format): format.fileExtension
        case .matchingSource(let preferred): "source(" + preferred.map(\.fileExtension).joined(separator: ",") + ")"
        }
    }
}
