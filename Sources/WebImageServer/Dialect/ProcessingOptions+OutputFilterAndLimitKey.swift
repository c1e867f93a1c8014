import WebImage

extension ProcessingOptions {
    /// The variant-key parts of the output, handling, filter and security options, each a
    /// valid option segment: `bga`, `scp`, `kcr`, `eth`, `fq` and `skp` (formats sorted),
    /// `t`, `pix`, `wm`, then the limits (which parse back only where security options are
    /// allowed). ``filename`` and ``returnAttachment`` are left out: they change only the
    /// response's headers. Without `includingOutput`, the encoder's `scp`, `kcr` and `fq`
    /// are left out too.
    func outputFilterAndLimitKeyParts(includingOutput output: Bool) -> [String] {
        var parts: [String] = []
        if let backgroundAlpha { parts.append("bga:\(Self.canonical(backgroundAlpha))") }
        if output, let stripColorProfile { parts.append("scp:\(stripColorProfile ? 1 : 0)") }
        if output, let keepCopyright { parts.append("kcr:\(keepCopyright ? 1 : 0)") }
        if let enforceThumbnail { parts.append("eth:\(enforceThumbnail ? 1 : 0)") }
        if output, !formatQuality.isEmpty {
            let pairs = formatQuality.sorted { $0.key.fileExtension < $1.key.fileExtension }
            parts.append("fq:" + pairs.map { "\($0.key.fileExtension):\($0.value)" }.joined(separator: ":"))
        }
        if !skipProcessing.isEmpty {
            parts.append("skp:" + skipProcessing.map(\.rawValue).sorted().joined(separator: ":"))
        }
        if let trim {
            let color = trim.color.map { String($0.hex.prefix(6)) } ?? ""
            parts.append("t:\(Self.canonical(trim.threshold)):\(color):\(trim.equalHorizontal ? 1 : 0):\(trim.equalVertical ? 1 : 0)")
        }
        if let pixelate { parts.append("pix:\(pixelate)") }
        if let watermark {
            parts.append("wm:\(Self.canonical(watermark.opacity)):\(watermark.position.name):\(Self.canonical(watermark.xOffset)):\(Self.canonical(watermark.yOffset)):\(Self.canonical(watermark.scale))")
        }
        if let pixels = limits.maxSourceResolution { parts.append("msr:\(Self.canonical(Double(pixels) / 1_000_000))") }
        if let bytes = limits.maxSourceFileSize { parts.append("msfs:\(bytes)") }
        if let frames = limits.maxAnimationFrames { parts.append("maf:\(frames)") }
        if let pixels = limits.maxAnimationFrameResolution { parts.append("mafr:\(Self.canonical(Double(pixels) / 1_000_000))") }
        if let dimension = limits.maxResultDimension { parts.append("mrd:\(dimension)") }
        return parts
    }
}
