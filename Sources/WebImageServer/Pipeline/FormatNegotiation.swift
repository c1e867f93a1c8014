import WebImage

/// Chooses the output format of a request: JPEG XL, AVIF or WebP when enforced and the
/// client's `Accept` lists them; else the URL's `format` option or
/// extension; else, when enabled, JPEG XL, AVIF or WebP if the client's `Accept` lists them;
/// else the source's own format when it is a preferred one; else the first preferred
/// format that can carry the image (alpha, animation). Where several are enabled and
/// accepted, JPEG XL comes first, then AVIF, then WebP, as in imgproxy. `format:best`
/// encodes the best-format candidates the client's `Accept` allows (JPEG XL, AVIF and WebP
/// only when listed) and serves the smallest.
struct FormatNegotiation: Sendable {
    let autoWebP: Bool
    let autoAVIF: Bool
    let preferredFormats: [ImageFormat]
    /// imgproxy's `IMGPROXY_ENFORCE_WEBP`: WebP for clients that accept it, whatever the URL names.
    var enforceWebP = false
    /// imgproxy's `IMGPROXY_ENFORCE_AVIF`: AVIF for clients that accept it, whatever the URL names (before WebP).
    var enforceAVIF = false
    /// imgproxy's `IMGPROXY_AUTO_JXL`: JPEG XL for clients that accept it when the URL names no format (before AVIF).
    var autoJXL = false
    /// imgproxy's `IMGPROXY_ENFORCE_JXL`: JPEG XL for clients that accept it, whatever the URL names (before AVIF).
    var enforceJXL = false
    /// The candidates of `format:best`, in order.
    var bestFormats: [ImageFormat] = VariantFormat.defaultBestCandidates

    /// What can be decided before the source is read.
    enum Choice: Sendable, Hashable {
        /// The URL named the format.
        case explicit(ImageFormat)
        /// Chosen from `Accept`; an animation, which AVIF and JPEG XL are not written as,
        /// gets `animated` when there is one (WebP, negotiated too), else its own format.
        case negotiated(ImageFormat, animated: ImageFormat? = nil)
        /// Decided by the source (its format, alpha, animation).
        case fromSource
        /// The smallest of these candidates (`format:best`, filtered by `Accept`).
        case best([ImageFormat])

        /// The part of the variant key that names the format.
        var keyComponent: String {
            switch self {
            case .explicit(let format): "f:" + format.fileExtension
            case .negotiated(let format, let animated): "f:" + format.fileExtension + (animated.map { "|" + $0.fileExtension } ?? "")
            case .fromSource: "f:source"
            case .best(let formats): "f:best(" + formats.map(\.fileExtension).joined(separator: ",") + ")"
            }
        }
    }

    /// Whether a response for a URL without a format depends on `Accept` (→ `Vary: Accept`).
    var variesWithAccept: Bool { autoWebP || autoAVIF || autoJXL || enforces }

    /// Whether `Accept` can replace a format the URL names (so such a response varies too).
    var enforces: Bool { enforceWebP || enforceAVIF || enforceJXL }

    func choice(requested: ImageFormat?, best: Bool = false, accept: String?) -> Choice {
        if best {
            let accepted = Self.acceptedTypes(accept)
            return .best(bestCandidates(
                acceptsAVIF: accepted.contains("image/avif"), acceptsWebP: accepted.contains("image/webp"), acceptsJXL: accepted.contains("image/jxl")
            ))
        }
        if enforces, requested != nil {
            let accepted = Self.acceptedTypes(accept)
            let animated: ImageFormat? = enforceWebP && accepted.contains("image/webp") ? .webp : nil
            if enforceJXL, accepted.contains("image/jxl") { return .negotiated(.jxl, animated: animated) }
            if enforceAVIF, accepted.contains("image/avif") { return .negotiated(.avif, animated: animated) }
            if enforceWebP, accepted.contains("image/webp") { return .negotiated(.webp) }
        }
        if let requested { return .explicit(requested) }
        guard autoAVIF || autoWebP || autoJXL || enforces else { return .fromSource }
        let accepted = Self.acceptedTypes(accept)
        let animated: ImageFormat? = (autoWebP || enforceWebP) && accepted.contains("image/webp") ? .webp : nil
        if autoJXL || enforceJXL, accepted.contains("image/jxl") { return .negotiated(.jxl, animated: animated) }
        if autoAVIF || enforceAVIF, accepted.contains("image/avif") { return .negotiated(.avif, animated: animated) }
        if autoWebP || enforceWebP, accepted.contains("image/webp") { return .negotiated(.webp) }
        return .fromSource
    }

    /// The variant format for `choice`: the named one, or the library's choice from the
    /// source among the preferred formats, decided once the source's header is read.
    func variantFormat(for choice: Choice) -> VariantFormat {
        switch choice {
        case .explicit(let format): .fixed(format)
        // imgproxy negotiates AVIF and JPEG XL for still images only.
        case .negotiated(let format, let animated) where !format.supportsAnimation:
            .firstSuitable([format] + (animated.map { [$0] } ?? []), otherwise: preferredFormats)
        case .negotiated(let format, _): .fixed(format)
        case .fromSource: .matchingSource(preferred: preferredFormats)
        case .best(let formats): .best(formats)
        }
    }

    /// The best-format candidates for a client that does or does not accept AVIF, WebP and JPEG XL.
    func bestCandidates(acceptsAVIF: Bool, acceptsWebP: Bool, acceptsJXL: Bool) -> [ImageFormat] {
        bestFormats.filter { format in
            switch format {
            case .avif: acceptsAVIF
            case .webp: acceptsWebP
            case .jxl: acceptsJXL
            default: true
            }
        }
    }

    /// Whether a `format:best` answer depends on `Accept`.
    var bestVariesWithAccept: Bool { bestFormats.contains(.avif) || bestFormats.contains(.webp) || bestFormats.contains(.jxl) }

    /// Every choice a URL asking for `requested` (or no format) can get, whatever `Accept` says.
    func possibleChoices(requested: ImageFormat?, best: Bool = false) -> [Choice] {
        if best {
            var choices: [Choice] = []
            for jxl in [true, false] {
                for (avif, webp) in [(true, true), (false, true), (true, false), (false, false)] {
                    let choice = Choice.best(bestCandidates(acceptsAVIF: avif, acceptsWebP: webp, acceptsJXL: jxl))
                    if !choices.contains(choice) { choices.append(choice) }
                }
            }
            return choices
        }
        var choices: [Choice] = [requested.map(Choice.explicit) ?? .fromSource]
        let webp = requested == nil ? autoWebP || enforceWebP : enforceWebP
        for (format, negotiated) in [(ImageFormat.jxl, requested == nil ? autoJXL || enforceJXL : enforceJXL),
                                     (.avif, requested == nil ? autoAVIF || enforceAVIF : enforceAVIF)] where negotiated {
            if webp { choices.append(.negotiated(format, animated: .webp)) }
            choices.append(.negotiated(format))
        }
        if requested == nil ? autoWebP || enforceWebP : enforceWebP { choices.append(.negotiated(.webp)) }
        return choices
    }

    /// The media types an `Accept` header lists with a non-zero quality, lower-cased.
    ///
    /// Read byte by byte: media types and parameters are ASCII tokens and the blanks around
    /// them are spaces and tabs (RFC 9110 OWS), so nothing needs Foundation's Unicode
    /// trimming or lower-casing, which made a hit with a browser's `Accept` cost about
    /// twice one without.
    static func acceptedTypes(_ accept: String?) -> Set<String> {
        guard let accept else { return [] }
        var types: Set<String> = []
        for item in accept.utf8.split(separator: UInt8(ascii: ",")) {
            let parts = item.split(separator: UInt8(ascii: ";"))
            guard let first = parts.first else { continue }
            let type = lowercasedTrimmed(first)
            guard !type.isEmpty else { continue }
            let refused = parts.dropFirst().contains { zeroQualities.contains(lowercasedTrimmed($0)) }
            if !refused { types.insert(type) }
        }
        return types
    }

    /// The parameters that refuse a type.
    private static let zeroQualities: Set<String> = ["q=0", "q=0.0", "q=0.00", "q=0.000"]

    /// `bytes` without leading and trailing spaces and tabs, ASCII lower-cased, as text.
    private static func lowercasedTrimmed(_ bytes: Substring.UTF8View.SubSequence) -> String {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(decoding: bytes[start...last].lazy.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

extension FormatNegotiation {
    /// The negotiation of a server with these encoding settings: its `Accept` rules, the
    /// formats a source may keep, and the candidates of `format:best`.
    init(encoding: ServerConfig.Encoding) {
        self.init(
            autoWebP: encoding.autoWebP, autoAVIF: encoding.autoAVIF, preferredFormats: encoding.preferredFormats,
            enforceWebP: encoding.enforceWebP, enforceAVIF: encoding.enforceAVIF,
            autoJXL: encoding.autoJXL, enforceJXL: encoding.enforceJXL, bestFormats: encoding.bestFormats
        )
    }
}
