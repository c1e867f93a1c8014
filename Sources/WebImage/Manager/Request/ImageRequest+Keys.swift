extension ImageRequest {
    /// For an encoded output: what it asks for without the source, the part of its cache
    /// key after the source's key, e.g. `variant(resize-fill-400x300-ce;f:webp,q:80)`;
    /// `nil` for a decoded image or bytes.
    public var variantKeyPart: String? {
        let encoding: VariantEncoding?
        var parts: [String] = []
        switch output {
        case .image, .data:
            return nil
        case .details(let includeGPS):
            return includeGPS ? "variant(details+gps)" : "variant(details)"
        case .encoded(_, .always):
            return "variant(passthrough)"
        case .encoded(let chosen, let passthrough):
            encoding = chosen
            if case .formats(let formats) = passthrough, !formats.isEmpty {
                parts.append("passthrough(" + formats.map(\.rawValue).sorted().joined(separator: ",") + ")")
            }
        case .thumbHash:
            encoding = nil
        }
        let processing = self.processing
        if processing.preferEmbeddedThumbnail { parts.append("embedded-thumbnail") }
        if let size = processing.thumbnailPixelSize {
            parts.append("thumbnail:\(size)" + (processing.preserveAspectRatio ? "" : ":stretch"))
        }
        if processing.firstFrameOnly { parts.append("first-frame") }
        if let bytes = processing.scaleDownLimitBytes { parts.append("scale-down:\(bytes)") }
        if processing.jpegShrink != .leavingResample { parts.append("jpeg-shrink:" + processing.jpegShrink.rawValue) }
        if let transformer = processing.transformer {
            parts.append(transformer.key + (processing.transformsAnimations ? "" : ":stills-only"))
        }
        parts.append(encoding?.key ?? "thumbhash")
        return "variant(" + parts.joined(separator: ";") + ")"
    }
}
