import Foundation
import WebImage

/// Makes one variant from the source bytes, on a coding-pool thread: reads the header
/// (limits checked before any pixel), decodes with shrink-on-load when the options allow,
/// applies the processing plan and encodes.
struct VariantRenderer: Sendable {
    let coder: any ImageCoder
    let limits: ImageLimits
    let negotiation: FormatNegotiation
    let defaultQuality: Int

    func render(_ data: Data, options: ProcessingOptions, choice: FormatNegotiation.Choice) throws(ImageError) -> EncodedVariant {
        let info = try coder.inspect(data, limits: limits)
        if options.raw {
            // `raw`: the source as it is (its header already passed the limits).
            return EncodedVariant(data: data)
        }
        let stored = info.pixelSize
        let upright = info.orientation >= 5 ? PixelSize(width: stored.height, height: stored.width) : stored
        let format = negotiation.format(
            for: choice, sourceFormat: info.format, hasAlpha: info.hasAlpha && options.background == nil,
            isAnimated: info.frameCount > 1
        )
        let decodeOptions = ImageDecodeOptions(
            thumbnailPixelSize: options.thumbnailPixelSize ?? options.decodeHint(sourceSize: upright),
            firstFrameOnly: !format.supportsAnimation,
            limits: limits
        )
        let image = try coder.decode(data, options: decodeOptions)
        // Planned for the decoded size: shrink-on-load may already have done part of a resize.
        let plan = options.plan(for: image.pixelSize)
        let output = plan.isIdentity ? image : try plan.pipeline.transform(image)
        let encoded = try coder.encode(output, options: plan.encodeOptions(format: format, defaultQuality: defaultQuality))
        return EncodedVariant(data: encoded)
    }
}
