import WebImage

/// Chooses the output format of a request (SPEC S7): the URL's `format` option or
/// extension first; else, when enabled, AVIF or WebP if the client's `Accept` lists them;
/// else the source's own format when it is a preferred one; else the first preferred
/// format that can carry the image (alpha, animation).
struct FormatNegotiation: Sendable {
    let autoWebP: Bool
    let autoAVIF: Bool
    let preferredFormats: [ImageFormat]

    /// What can be decided before the source is read.
    enum Choice: Sendable, Hashable {
        /// The URL named the format.
        case explicit(ImageFormat)
        /// Chosen from `Accept`.
        case negotiated(ImageFormat)
        /// Decided by the source (its format, alpha, animation).
        case fromSource

        /// The part of the variant key that names the format.
        var keyComponent: String {
            switch self {
            case .explicit(let format): "f:" + format.fileExtension
            case .negotiated(let format): "f:" + format.fileExtension
            case .fromSource: "f:source"
            }
        }
    }

    /// Whether a response for a URL without a format depends on `Accept` (→ `Vary: Accept`).
    var variesWithAccept: Bool { autoWebP || autoAVIF }

    func choice(requested: ImageFormat?, accept: String?) -> Choice {
        if let requested { return .explicit(requested) }
        let accepted = Self.acceptedTypes(accept)
        if autoAVIF, accepted.contains("image/avif") { return .negotiated(.avif) }
        if autoWebP, accepted.contains("image/webp") { return .negotiated(.webp) }
        return .fromSource
    }

    /// The format for `choice` once the source is known.
    func format(for choice: Choice, sourceFormat: ImageFormat, hasAlpha: Bool, isAnimated: Bool) -> ImageFormat {
        switch choice {
        case .explicit(let format), .negotiated(let format):
            return format
        case .fromSource:
            if sourceFormat.isWritable, preferredFormats.contains(sourceFormat) { return sourceFormat }
            let suitable = preferredFormats.first { format in
                (!hasAlpha || format != .jpeg) && (!isAnimated || format.supportsAnimation)
            }
            return suitable ?? (hasAlpha ? .png : .jpeg)
        }
    }

    /// The media types an `Accept` header lists with a non-zero quality, lower-cased.
    static func acceptedTypes(_ accept: String?) -> Set<String> {
        guard let accept else { return [] }
        var types: Set<String> = []
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            let refused = parts.dropFirst().contains { $0 == "q=0" || $0 == "q=0.0" || $0 == "q=0.00" || $0 == "q=0.000" }
            if !refused { types.insert(type) }
        }
        return types
    }
}
