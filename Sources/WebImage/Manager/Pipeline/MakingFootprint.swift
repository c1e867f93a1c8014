extension ImagePipeline {
    /// What making `request`'s output holds besides its decode, as ``MemoryBudget`` counts
    /// it, for a source whose header says `info`, decoded with `options`; every image past
    /// the decode is counted at 4 bytes a pixel (a transform may add alpha):
    ///
    /// - the largest image the transformer makes from the decoded image
    ///   (``ImageTransformer/largestSize(forInputSize:)``: an enlargement, an extended or
    ///   padded canvas), when there is a transformer;
    /// - for an encoded output, the encoder's output at the output's size
    ///   (``ImageTransformer/outputSize(forInputSize:)``);
    /// - with auto quality, a candidate decoded back and the three planes its SSIM is
    ///   measured on; with several candidate formats (``VariantFormat/best(_:)``), the
    ///   smallest result kept while the next format is encoded.
    ///
    /// An animation counts the frames its decode holds (about ``framesHeldOnDemand`` when
    /// they are made on demand).
    static func reservedBytes(making request: ImageRequest, info: ImageInfo, options: ImageDecodeOptions) -> Int {
        let frames = options.firstFrameOnly || !info.format.supportsAnimation ? 1 : max(1, info.frameCount)
        let heldFrames = Double(frames > 1 && options.framesOnDemand ? min(frames, framesHeldOnDemand) : frames)
        let upright = info.uprightPixelSize
        let decoded = options.targetSize(for: upright, frames: frames) ?? upright
        let transformer = request.processing.transformer
        let output = transformer?.outputSize(forInputSize: decoded) ?? decoded
        let pixel = 4.0
        var bytes = 0.0
        if let transformer {
            bytes += transformer.largestSize(forInputSize: decoded).pixelCount * pixel * heldFrames
        }
        if case .encoded(let encoding, _) = request.output {
            let encoded = output.pixelCount * pixel * heldFrames
            bytes += encoded
            if encoding.autoQuality != nil, frames == 1 {
                bytes += output.pixelCount * pixel + output.pixelCount * 4 * 3
            }
            let candidates = encoding.format.candidates(sourceFormat: info.format, hasAlpha: info.hasAlpha, isAnimated: frames > 1)
            if candidates.count > 1 { bytes += encoded }
        }
        return bytes >= Double(Int.max) ? Int.max : Int(bytes)
    }

    /// On a coding thread, before `request` decodes, transforms or encodes: reserves from
    /// its work slot's budget what it will hold (`sourceBytes` and the decode with
    /// `options` when `decoding`, and ``reservedBytes(making:info:options:)``), once —
    /// nothing when it holds a reservation already. Throws
    /// ``ImageError/memoryBudgetExceeded(needed:budget:)`` when that is more than the whole
    /// budget: such a request could never run.
    static func reserveMemory(
        for request: ResolvedRequest, info: ImageInfo, options: ImageDecodeOptions, sourceBytes: Int, decoding: Bool
    ) throws(ImageError) -> Int? {
        guard let memory = request.memory, !memory.isHeld else { return nil }
        let decode = decoding ? reservedBytes(decoding: info, with: options, sourceBytes: sourceBytes) : 0
        let making = reservedBytes(making: request.request, info: info, options: options)
        let (total, overflow) = decode.addingReportingOverflow(making)
        let needed = overflow ? Int.max : total
        guard needed <= memory.budgetBytes else { throw .memoryBudgetExceeded(needed: needed, budget: memory.budgetBytes) }
        memory.reserve(needed)
        return needed
    }

    /// ``reserveMemory(for:info:options:sourceBytes:decoding:)`` for a request that did not
    /// decode its image itself (it joined a decode, or found it in memory): its transform
    /// and encode only.
    static func reserveMaking(for request: ResolvedRequest, from decoded: DecodedImage) throws(ImageError) {
        guard request.memory != nil else { return }
        let transformer = request.request.processing.transformer
        let options = request.plan.options(for: decoded.info, transformer: transformer, framesOnDemand: request.framesOnDemand).options
        _ = try reserveMemory(for: request, info: decoded.info, options: options, sourceBytes: 0, decoding: false)
    }
}
