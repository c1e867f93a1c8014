/// How a request decodes its source, whatever it asks for: the decoded-image stage's key
/// after the source's (every field is part of it), and the one place the decode options
/// are chosen from the source's header.
struct DecodePlan: Sendable, Hashable {
    /// Decode within this box (shrink-on-load).
    var thumbnailPixelSize: PixelSize?
    /// With a thumbnail box: keep the aspect ratio.
    var preserveAspectRatio: Bool
    /// Decode under this many bytes of pixels.
    var scaleDownLimitBytes: Int?
    /// Decode the first frame of an animation only: asked for, or the output cannot animate.
    var firstFrameOnly: Bool
    /// Checked from the header before any pixel.
    var limits: ImageLimits
    /// Read a HEIC, HEIF or AVIF source from its embedded thumbnail.
    var preferEmbeddedThumbnail: Bool
    /// How far a JPEG source shrinks in libjpeg.
    var jpegShrink: ImageDecodeOptions.JPEGShrink
    /// Resample a smaller decode in linear light: the transformer resizes so
    /// (``ImageTransformer/resizesInLinearLight``).
    var resizesInLinearLight: Bool
    /// Keep the source's colour profile and pixels instead of converting them to sRGB: an
    /// encoded output that keeps the source's profile (``OutputColorProfile/source``).
    var keepsColorProfile: Bool
    /// The key of the transformer a still decode may be shrunk for
    /// (``ImageTransformer/shrinkOnLoadSize(forSourceSize:)``); `nil` when none may be.
    var shrinksFor: String?

    /// The plan of `request`: its processing, and for an encoded output the frames its
    /// format can carry.
    init(_ request: ImageRequest) {
        let processing = request.processing
        thumbnailPixelSize = processing.thumbnailPixelSize
        preserveAspectRatio = processing.preserveAspectRatio
        scaleDownLimitBytes = processing.scaleDownLimitBytes
        limits = request.limits
        preferEmbeddedThumbnail = processing.preferEmbeddedThumbnail
        jpegShrink = processing.jpegShrink
        resizesInLinearLight = processing.transformer?.resizesInLinearLight ?? false
        switch request.output {
        case .encoded(let encoding, _):
            firstFrameOnly = processing.firstFrameOnly || !encoding.format.canAnimate
            keepsColorProfile = encoding.options.colorProfile == .source
        case .thumbHash:
            firstFrameOnly = true
            keepsColorProfile = false
        case .image, .data, .details:
            firstFrameOnly = processing.firstFrameOnly
            keepsColorProfile = false
        }
        let mayShrink = thumbnailPixelSize == nil && !preferEmbeddedThumbnail
        shrinksFor = mayShrink ? processing.transformer?.key : nil
    }

    /// The options the request asks for before its source is seen: what a memory key and
    /// a progressive preview use.
    var requestedOptions: ImageDecodeOptions {
        var options = ImageDecodeOptions(
            thumbnailPixelSize: thumbnailPixelSize, preserveAspectRatio: preserveAspectRatio,
            scaleDownLimitBytes: scaleDownLimitBytes, firstFrameOnly: firstFrameOnly, limits: limits
        )
        options.preferEmbeddedThumbnail = preferEmbeddedThumbnail
        options.keepsColorProfile = keepsColorProfile
        options.jpegShrink = jpegShrink
        options.resizesInLinearLight = resizesInLinearLight
        return options
    }

    /// The options to decode a source with `info` in its header: the requested ones, and
    /// for a still image (or the first frame only) without a thumbnail box the exact size
    /// `transformer` lets it be decoded at (its aspect ratio is the source's). `shrunk`:
    /// that size was used, so the image is not the source at full size. `framesOnDemand`:
    /// an animation's frames are made when the encoder reads them (an encoded output, made
    /// once and let go), which is not part of the plan: a decode shared with a request that
    /// keeps its image is brought into memory by that request.
    func options(
        for info: ImageInfo, transformer: (any ImageTransformer)?, framesOnDemand: Bool
    ) -> (options: ImageDecodeOptions, shrunk: Bool) {
        var options = requestedOptions
        options.framesOnDemand = framesOnDemand
        guard shrinksFor != nil, let transformer, info.frameCount == 1 || firstFrameOnly,
              // EXIF orientations 5–8 turn the image a quarter: the transformer sees it upright.
              let size = transformer.shrinkOnLoadSize(forSourceSize: info.uprightPixelSize)
        else { return (options, false) }
        options.thumbnailPixelSize = size
        options.preserveAspectRatio = false
        return (options, true)
    }
}

extension VariantFormat {
    /// Whether an animated source keeps its animation in this format: some format it may
    /// choose can carry frames (``candidates(sourceFormat:hasAlpha:isAnimated:)``).
    var canAnimate: Bool {
        switch self {
        case .fixed(let format):
            return format.supportsAnimation
        case .matchingSource(let preferred):
            return preferred.contains { $0.isWritable && $0.supportsAnimation }
        case .firstSuitable(let formats, let otherwise):
            return formats.contains { $0.isWritable && $0.supportsAnimation } || VariantFormat.matchingSource(preferred: otherwise).canAnimate
        case .best:
            // With no animated format among its own, `best` falls back to the source's
            // format among the defaults, which include animated ones.
            return true
        }
    }
}
