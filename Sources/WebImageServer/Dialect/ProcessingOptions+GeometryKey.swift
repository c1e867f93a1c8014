extension ProcessingOptions {
    /// The variant-key parts of `min-width`, `min-height`, `zoom`, `extend_aspect_ratio`,
    /// `auto_rotate` and `flip`, each a valid option segment, present only when the option
    /// is off its default.
    var geometryKeyParts: [String] {
        var parts: [String] = []
        if minWidth != 0 { parts.append("mw:\(minWidth)") }
        if minHeight != 0 { parts.append("mh:\(minHeight)") }
        if zoomWidth != 1 || zoomHeight != 1 { parts.append("z:\(Self.canonical(zoomWidth)):\(Self.canonical(zoomHeight))") }
        if extendAspectRatio { parts.append("exar:1:\(Self.canonical(extendAspectRatioGravity))") }
        if !autoRotate { parts.append("ar:0") }
        if flipHorizontal || flipVertical { parts.append("fl:\(flipHorizontal ? 1 : 0):\(flipVertical ? 1 : 0)") }
        return parts
    }
}
