import Tracing

/// A processed image, and the decoded source it was made from.
struct ProcessedImage: Sendable {
    let image: Image
    let decoded: DecodedImage
    /// Whether an animated source was transformed frame by frame (else it is the decoded
    /// animation as it is).
    let transformsAnimations: Bool
}

extension ImagePipeline {
    /// Runs `then` with the request's processed image on a coding thread and returns its
    /// result: transformed once for every request that needs the same transform of the
    /// same decode at once, in the same visit to the coding thread as the decode and `then`
    /// where it can be. Without a transformer, the decoded source. `source`: the source's
    /// bytes, when the caller holds them already.
    func withProcessed<T: Sendable>(
        _ request: ResolvedRequest, run: StageRun, from source: SourceData? = nil,
        then: @escaping @Sendable (ProcessedImage) throws(ImageError) -> T
    ) async throws(ImageError) -> T {
        let processing = request.request.processing
        guard let transformer = processing.transformer else {
            return try await withDecoded(request, run: run, from: source) { decoded throws(ImageError) -> T in
                try then(ProcessedImage(image: decoded.image, decoded: decoded, transformsAnimations: processing.transformsAnimations))
            }
        }
        let animations = processing.transformsAnimations
        return try await processed.value(
            request.processStageKey, run: run,
            below: { run, next throws(ImageError) -> T in try await withDecoded(request, run: run, from: source, then: next) },
            compute: { decoded, trace throws(ImageError) -> ProcessedImage in
                try Self.transform(decoded, with: transformer, animations: animations, trace: trace)
            },
            then: { processed throws(ImageError) -> T in
                guard processed.decoded.image.isAnimated, processed.transformsAnimations != animations else { return try then(processed) }
                // Made by a request with the other choice for animations: the decoded
                // animation that came with it gives this request's.
                return try then(try Self.transform(processed.decoded, with: transformer, animations: animations, trace: nil))
            }
        )
    }

    /// On a coding thread: applies `transformer` to `decoded` in a `webimage.transform`
    /// span; an animation only when `animations` says so.
    static func transform(
        _ decoded: DecodedImage, with transformer: any ImageTransformer, animations: Bool, trace: ServiceContext?
    ) throws(ImageError) -> ProcessedImage {
        if decoded.image.isAnimated, !animations {
            return ProcessedImage(image: decoded.image, decoded: decoded, transformsAnimations: false)
        }
        let output = try LibrarySpans.run("webimage.transform", parent: trace) { span throws(ImageError) -> Image in
            let output = try transformer.transform(decoded.image)
            span.attributes["webimage.width"] = output.pixelSize.width
            span.attributes["webimage.height"] = output.pixelSize.height
            return output
        }
        return ProcessedImage(image: output, decoded: decoded, transformsAnimations: animations)
    }
}
