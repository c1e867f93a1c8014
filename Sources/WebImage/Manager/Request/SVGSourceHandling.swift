/// What an encoded variant of an SVG source is (``VariantEncoding/svgSources``): pixels
/// rendered from it, or the SVG itself.
public enum SVGSourceHandling: Sendable, Hashable {
    /// Rendered by libvips (librsvg) and encoded as ``VariantEncoding/format`` says, like
    /// any source.
    case rasterize
    /// Served as SVG, without a decode, a transformer or an encode: its bytes passed
    /// through `sanitizer`, or as they are when it is `nil`. A source in another format is
    /// made as ``VariantEncoding/format`` says; one that the format resolves to
    /// ``ImageFormat/svg`` for (a raster source asked for as SVG) fails with
    /// ``ImageError/invalidTransform(_:)``. The variant's pixel size is the one the SVG's
    /// root element declares (`width` and `height`, else its `viewBox`): nothing is
    /// rendered, and libvips' SVG loader never reads the bytes.
    case serve(sanitizer: SVGSanitizer?)

    /// A sanitised SVG with ``SVGSanitizer``'s default limits.
    public static let serveSanitized = SVGSourceHandling.serve(sanitizer: SVGSanitizer())

    /// The part of a variant key that names it; empty for ``rasterize``.
    var key: String {
        switch self {
        case .rasterize: ""
        case .serve(nil): "svg:as-is"
        case .serve(let sanitizer?):
            sanitizer == SVGSanitizer() ? "svg:sanitized" : "svg:sanitized(\(sanitizer.maxBytes),\(sanitizer.maxDepth))"
        }
    }
}
