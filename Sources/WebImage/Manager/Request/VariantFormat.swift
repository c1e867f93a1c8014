/// The format an encoded variant is written in: named, or chosen from the source.
public enum VariantFormat: Sendable, Hashable {
    /// Always this format (it must be one the coder can write).
    case fixed(ImageFormat)
    /// Decided once the source's header is read: the source's own format when it is in
    /// `preferred` and can be written; else the first of `preferred` that can carry the
    /// image (not JPEG for an image with alpha, GIF or WebP for an animation); else PNG for
    /// an image with alpha and JPEG without. imgproxy's rule for a URL without a format.
    case matchingSource(preferred: [ImageFormat])
    /// Every format of the list that can carry the image (not JPEG for an image with alpha,
    /// only animated formats for an animation) is encoded from one decode, and the smallest
    /// result is served. When none can carry it, as ``matchingSource``.
    case best([ImageFormat])
    /// The first of the formats that can carry the image (not JPEG for an image with alpha,
    /// only animated formats for an animation), else as ``matchingSource(preferred:)`` with
    /// `otherwise`: a format negotiated for still images (AVIF, say) with another for
    /// animations (WebP), as `[.avif, .webp]`.
    case firstSuitable([ImageFormat], otherwise: [ImageFormat])

    /// The source's format where possible, among JPEG, PNG, GIF and WebP.
    public static let matchingSource = VariantFormat.matchingSource(preferred: [.jpeg, .png, .gif, .webp])

    /// The candidates of ``best`` : JPEG, PNG, WebP and AVIF.
    public static let defaultBestCandidates: [ImageFormat] = [.jpeg, .png, .webp, .avif]

    /// ``best(_:)`` over ``defaultBestCandidates``.
    public static let best = VariantFormat.best(defaultBestCandidates)

    /// The formats to encode for a source of `sourceFormat`: one, except for ``best(_:)``.
    public func candidates(sourceFormat: ImageFormat, hasAlpha: Bool, isAnimated: Bool) -> [ImageFormat] {
        guard case .best(let formats) = self else {
            return [resolve(sourceFormat: sourceFormat, hasAlpha: hasAlpha, isAnimated: isAnimated)]
        }
        var suitable: [ImageFormat] = []
        for format in formats where format.isWritable && (!hasAlpha || format != .jpeg)
            && (!isAnimated || format.supportsAnimation) && !suitable.contains(format) {
            suitable.append(format)
        }
        return suitable.isEmpty
            ? [VariantFormat.matchingSource.resolve(sourceFormat: sourceFormat, hasAlpha: hasAlpha, isAnimated: isAnimated)]
            : suitable
    }

    /// The format for a source of `sourceFormat`, with or without alpha, still or animated
    /// (for ``best(_:)``, the first of its ``candidates(sourceFormat:hasAlpha:isAnimated:)``).
    public func resolve(sourceFormat: ImageFormat, hasAlpha: Bool, isAnimated: Bool) -> ImageFormat {
        switch self {
        case .fixed(let format):
            return format
        case .best:
            return candidates(sourceFormat: sourceFormat, hasAlpha: hasAlpha, isAnimated: isAnimated)[0]
        case .firstSuitable(let formats, let otherwise):
            let suitable = formats.first { format in
                format.isWritable && (!hasAlpha || format != .jpeg) && (!isAnimated || format.supportsAnimation)
            }
            return suitable ?? VariantFormat.matchingSource(preferred: otherwise)
                .resolve(sourceFormat: sourceFormat, hasAlpha: hasAlpha, isAnimated: isAnimated)
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

    /// A stable name for keys: `webp`, `source(jpeg,png)` or `best(jpeg,webp)`.
    public var key: String {
        switch self {
        case .fixed(let format): format.fileExtension
        case .matchingSource(let preferred): "source(" + preferred.map(\.fileExtension).joined(separator: ",") + ")"
        case .best(let formats): "best(" + formats.map(\.fileExtension).joined(separator: ",") + ")"
        case .firstSuitable(let formats, let otherwise):
            "first(" + formats.map(\.fileExtension).joined(separator: ",") + ")"
                + VariantFormat.matchingSource(preferred: otherwise).key
        }
    }
}
