import Tracing

/// A decoded source, and what it was decoded from.
struct DecodedImage: Sendable {
    let image: Image
    /// The source's header.
    let info: ImageInfo
    /// Whether it was decoded smaller than the source for a transformer (shrink-on-load):
    /// not the source at full size, so never cached as the source.
    let shrunk: Bool
    /// The bytes it was decoded from.
    let source: SourceData
}

extension ImagePipeline {
    /// Runs `then` with the request's decoded source on a coding thread and returns its
    /// result: the full-size source from memory when the request may use it, else decoded
    /// once for every request that needs the same decode at once, in the same visit to the
    /// coding thread as the source's read and `then` where it can be.
    ///
    /// `source`: the source's bytes, when the caller holds them already (the source stage
    /// gave them to it), decoded as they are instead of being asked for again.
    func withDecoded<T: Sendable>(
        _ request: ResolvedRequest, run: StageRun, from source: SourceData? = nil,
        then: @escaping @Sendable (DecodedImage) throws(ImageError) -> T
    ) async throws(ImageError) -> T {
        if let original = memoryOriginal(of: request) {
            return try await run.code { () throws(ImageError) -> T in try then(original) }
        }
        return try await decodes.value(
            request.decodeStageKey, run: run,
            below: { run, next throws(ImageError) -> T in
                guard let source else { return try await withSource(request, run: run, then: next) }
                return try await run.code { () throws(ImageError) -> T in try next(source) }
            },
            compute: { source, trace throws(ImageError) -> DecodedImage in try Self.decode(source, for: request, trace: trace) },
            then: then
        )
    }

    /// The full-size decoded source in the source cache's memory, when the request may be
    /// made from it: a processed or encoded result whose source may be looked up in memory,
    /// decoded without a box, a byte limit or the embedded thumbnail, in sRGB.
    private func memoryOriginal(of request: ResolvedRequest) -> DecodedImage? {
        let plan = request.plan
        guard !request.isSource, request.sourceQuery.includesMemory, plan.thumbnailPixelSize == nil,
              plan.scaleDownLimitBytes == nil, !plan.preferEmbeddedThumbnail, !plan.keepsColorProfile,
              let originalKey = request.originalKey,
              let stored = request.sourceCache.imageFromMemory(forKey: originalKey)
        else { return nil }
        let image = plan.firstFrameOnly ? ImageCache.firstFrame(of: stored) : stored
        let info = ImageInfo(
            format: stored.format, pixelSize: stored.pixelSize, frameCount: stored.frameCount, orientation: 1, hasAlpha: stored.hasAlpha
        )
        return DecodedImage(image: image, info: info, shrunk: false, source: .inMemory)
    }

    /// On a coding thread: decodes `source` as the request's plan says, from one header
    /// read, in a `webimage.decode` span.
    static func decode(_ source: SourceData, for request: ResolvedRequest, trace: ServiceContext?) throws(ImageError) -> DecodedImage {
        let (coder, plan, data) = (request.coder, request.plan, source.data)
        let transformer = request.request.processing.transformer
        var shrunk = false
        let (info, image) = try LibrarySpans.run("webimage.decode", parent: trace) { span throws(ImageError) -> (ImageInfo, Image) in
            try coder.decode(data) { info throws(ImageError) -> ImageDecodeOptions in
                span.attributes["webimage.source.format"] = info.format.rawValue
                span.attributes["webimage.source.width"] = info.uprightPixelSize.width
                span.attributes["webimage.source.height"] = info.uprightPixelSize.height
                span.attributes["webimage.bytes"] = data.count
                let planned = plan.options(for: info, transformer: transformer, framesOnDemand: request.framesOnDemand)
                shrunk = planned.shrunk
                // A source over the limits is refused right after this, before any pixel:
                // it reserves nothing, so that it cannot make other work wait.
                if Self.withinLimits(info, planned.options),
                   let bytes = try Self.reserveMemory(for: request, info: info, options: planned.options, sourceBytes: data.count, decoding: true) {
                    span.attributes["webimage.memory.reserved"] = bytes
                }
                return planned.options
            }
        }
        return DecodedImage(image: image, info: info, shrunk: shrunk, source: source)
    }

    /// Whether a source with `info` passes the pixel and frame limits of `options` (the
    /// decode checks them again, exactly).
    private static func withinLimits(_ info: ImageInfo, _ options: ImageDecodeOptions) -> Bool {
        let frames = options.firstFrameOnly || !info.format.supportsAnimation ? 1 : options.limits.framesDecoded(of: info.frameCount)
        return (try? options.limits.check(frames: frames, frameSize: info.pixelSize)) != nil
    }

    /// The frames an animation made on demand holds at once on its way to an encoder: the
    /// decoder's frame, the frame being transformed, and the two each strip keeps.
    static let framesHeldOnDemand = 4

    /// What a decode of a source with `info` holds as ``MemoryBudget`` counts it: the
    /// source's bytes and the decoded pixels after shrink-on-load (4 bands with alpha,
    /// else 3, for every frame decoded), twice the pixels when a full-size still image is
    /// turned for its EXIF orientation. An animation whose frames are made on demand holds
    /// a copy of its bytes and about ``framesHeldOnDemand`` frames, and one frame at full
    /// size on its way to a thumbnail. An interlaced file's decoder holds the whole image
    /// at full size besides (``ImageInfo/interlacedBufferBytes``): a progressive JPEG
    /// fitted into 500 px from 15 MP takes about 90 MB, not the 3 MB of its pixels.
    static func reservedBytes(decoding info: ImageInfo, with options: ImageDecodeOptions, sourceBytes: Int) -> Int {
        let frames = options.firstFrameOnly || !info.format.supportsAnimation ? 1 : options.limits.framesDecoded(of: info.frameCount)
        let upright = info.uprightPixelSize
        let target = options.targetSize(for: upright, frames: frames)
        let decoded = target ?? upright
        let turned = target == nil && frames == 1 && info.orientation != 1
        let onDemand = frames > 1 && options.framesOnDemand
        let heldFrames = onDemand ? Double(min(frames, framesHeldOnDemand)) : Double(frames)
        var pixels = Double(decoded.width) * Double(decoded.height) * heldFrames
        if onDemand, target != nil { pixels += Double(upright.width) * Double(upright.height) }
        let bytes = pixels * (info.hasAlpha ? 4 : 3) * (turned ? 2 : 1) + Double(sourceBytes) * (onDemand ? 2 : 1)
            + info.interlacedBufferBytes
        return bytes >= Double(Int.max) ? Int.max : Int(bytes)
    }
}
