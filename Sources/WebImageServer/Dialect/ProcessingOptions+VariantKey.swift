extension ProcessingOptions {
    /// A canonical, stable description of what the options produce, for the server's
    /// variant cache: options with the same meaning give the same key whatever their order,
    /// aliases, meta-options or presets. Includes ``cacheBuster``; excludes ``expires``
    /// (it changes whether the URL is served, not what is served), ``filename`` and
    /// ``returnAttachment`` (they change only the response's headers). Empty when every option
    /// is at its default. Combine it with the source URL to key a variant.
    public var variantKey: String { keyParts(includingOutput: true).joined(separator: "/") }

    /// ``variantKey`` without the options only the encoder reads (quality, `max_bytes`,
    /// format, `format_quality`, metadata, colour profile and copyright stripping) and the
    /// outputs other than an image (`f:thumbhash`, the details' `gps`): what the processed
    /// image depends on. Two URLs that differ only in those share one decode and one resize.
    public var transformKey: String { keyParts(includingOutput: false).joined(separator: "/") }

    /// The key's parts in their order; `includingOutput`: the encoder's and the outputs' too.
    private func keyParts(includingOutput output: Bool) -> [String] {
        var parts: [String] = []
        if resizingType != .fit { parts.append("rt:\(resizingType.rawValue)") }
        if width != 0 { parts.append("w:\(width)") }
        if height != 0 { parts.append("h:\(height)") }
        if dpr != 1 { parts.append("dpr:\(Self.canonical(dpr))") }
        if enlarge { parts.append("el:1") }
        if extend { parts.append("ex:1:\(Self.canonical(extendGravity))") }
        if gravity != .center { parts.append("g:\(Self.canonical(gravity))") }
        if let crop {
            var part = "c:\(Self.canonical(crop.width)):\(Self.canonical(crop.height))"
            if let cropGravity = crop.gravity { part += ":" + Self.canonical(cropGravity) }
            parts.append(part)
        }
        if let padding { parts.append("pd:\(padding.top):\(padding.right):\(padding.bottom):\(padding.left)") }
        if output, let quality { parts.append("q:\(quality)") }
        if output, autoQuality { parts.append("q:auto" + (autoQualityTarget.map { ":\(Self.canonical($0))" } ?? "")) }
        if output, let maxBytes { parts.append("mb:\(maxBytes)") }
        if output, let format { parts.append("f:\(format.fileExtension)") }
        if output, bestFormat { parts.append("f:best") }
        if output, thumbHash { parts.append("f:thumbhash") }
        if output, includeGPS { parts.append("gps:1") }
        if let blur { parts.append("bl:\(Self.canonical(blur))") }
        if let sharpen { parts.append("sh:\(Self.canonical(sharpen))") }
        if rotate != 0 { parts.append("rot:\(rotate)") }
        if let background { parts.append("bg:" + (background.isOpaque ? String(background.hex.prefix(6)) : background.hex)) }
        if output, let stripMetadata { parts.append("sm:\(stripMetadata ? 1 : 0)") }
        if raw { parts.append("raw:1") }
        parts += geometryKeyParts
        parts += outputFilterAndLimitKeyParts(includingOutput: output)
        // Last: free text (it never holds a '/', being one path segment).
        if let cacheBuster { parts.append("cb:" + cacheBuster) }
        return parts
    }

    static func canonical(_ gravity: ProxyGravity) -> String {
        switch gravity {
        case .anchor(let anchor, let x, let y): "\(anchor.rawValue):\(canonical(x)):\(canonical(y))"
        case .smart: "sm"
        case .focusPoint(let x, let y): "fp:\(canonical(x)):\(canonical(y))"
        }
    }

    /// Fixed-point with at most six decimals and no trailing zeros (`2`, `1.5`, `0.000001`),
    /// so `1.50` and `1.5` give one key and the key parses back as options. Option values
    /// are rounded to six decimals when parsed, so nothing is lost.
    static func canonical(_ value: Double) -> String {
        // Parsed values are bounded far below this; values set in code may not be.
        guard value.isFinite, abs(value) < 1e12 else { return "\(value)" }
        let micros = Int((abs(value) * 1e6).rounded())
        let sign = value < 0 && micros != 0 ? "-" : ""
        let whole = micros / 1_000_000
        let fraction = micros % 1_000_000
        guard fraction != 0 else { return sign + String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }
}
