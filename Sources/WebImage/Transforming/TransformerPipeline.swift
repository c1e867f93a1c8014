/// Several transformers applied in order, as one: SDImagePipelineTransformer.
///
/// Its key joins the children's keys with `+` (`resize-fill-400x300-ce+blur-2`); an
/// empty pipeline leaves the image as it is, and its key is empty, so its cache key is
/// the original's.
public struct TransformerPipeline: ImageTransformer {
    /// The transformers, first applied first.
    public let transformers: [any ImageTransformer]

    /// Creates a pipeline applying `transformers` in order.
    public init(_ transformers: [any ImageTransformer]) {
        self.transformers = transformers
    }

    /// The ``transformers``' keys joined with `+`; empty for an empty pipeline.
    public var key: String { transformers.map(\.key).joined(separator: "+") }

    /// Applies the ``transformers`` in order, each to the previous one's result.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        var result = image
        for transformer in transformers {
            result = try transformer.transform(result)
        }
        return result
    }

    /// The first transformer's: the one the decode shrinks for.
    public var resizesInLinearLight: Bool { transformers.first?.resizesInLinearLight ?? false }

    /// The first transformer's size: it alone sees the source, and what follows it sees
    /// the same output, whichever size the source was decoded at.
    public func shrinkOnLoadSize(forSourceSize sourceSize: PixelSize) -> PixelSize? {
        transformers.first?.shrinkOnLoadSize(forSourceSize: sourceSize)
    }

    /// Each transformer's output size fed to the next; a transformer that cannot tell
    /// passes its input's size on.
    public func outputSize(forInputSize inputSize: PixelSize) -> PixelSize? {
        transformers.reduce(inputSize) { size, transformer in transformer.outputSize(forInputSize: size) ?? size }
    }

    /// The largest size any step makes, each step given the previous one's output; the
    /// input's size for an empty pipeline.
    public func largestSize(forInputSize inputSize: PixelSize) -> PixelSize {
        var size = inputSize
        var largest: PixelSize?
        for transformer in transformers {
            let made = transformer.largestSize(forInputSize: size)
            largest = largest.map { PixelSize.larger($0, made) } ?? made
            size = transformer.outputSize(forInputSize: size) ?? size
        }
        return largest ?? inputSize
    }
}
