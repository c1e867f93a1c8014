import CVips

extension Image {
    /// Applies `body` to each frame on its own and joins the results back into one image,
    /// keeping frame durations and loop count: the way geometric transforms (resize, crop,
    /// rotate, blur…) treat an animation, whose frames libvips stores as one tall strip
    /// ("toilet roll", `page-height` tall each). Every frame must come out the same size.
    /// `body` receives a lazy frame and returns a lazy result. Each frame is finished in
    /// memory before the next is made, so the operations of one frame at a time are held:
    /// an image whose frames are made on demand gives one too, made as it is read; any
    /// other gives one that owns its pixels.
    func transformingFrames(
        _ body: @escaping @Sendable (VipsImageHandle) throws(ImageError) -> VipsImageHandle
    ) throws(ImageError) -> Image {
        if frameCount == 1 {
            let result = try body(handle)
            return result === handle ? self : try finishing(result)
        }
        let input = self
        let first = try Self.finishedFrame(body(try input.frameHandle(0)))
        let frames = frameCount
        let made = try Image.framesOnDemand(
            frameSize: PixelSize(width: first.width, height: first.height), frameCount: frames, bands: first.bands,
            interpretation: wi_interpretation(first.pointer), frameDurations: frameDurations, loopCount: loopCount,
            format: format, sourceOrientation: sourceOrientation, loadedPixelSize: loadedPixelSize,
            sourcePixelSize: sourcePixelSize, scale: scale
        ) { index throws(ImageError) -> VipsImageHandle in
            if index == 0 { return first }
            let frame = try Self.finishedFrame(body(try input.frameHandle(index)))
            guard frame.width == first.width, frame.height == first.height, frame.bands == first.bands else {
                throw .invalidTransform("the frames of the \(frames)-frame animation came out in different sizes; use a transform whose result does not depend on the frame's content")
            }
            return frame
        }
        return makesFramesOnDemand ? made : try made.inMemory()
    }

    /// One transformed frame in memory, 8 bits a channel.
    private static func finishedFrame(_ frame: VipsImageHandle) throws(ImageError) -> VipsImageHandle {
        let normalised = try VipsTransform.normalise(frame)
        guard let memory = vips_image_copy_memory(normalised.pointer) else {
            throw .invalidTransform("computing a transformed frame failed in libvips: \(Vips.takeError())")
        }
        return VipsImageHandle(memory)
    }

    /// Applies `body` to all frames at once: for point operations (tint, grayscale,
    /// flattening), where no pixel depends on its neighbours, so the frame strip can be
    /// processed in one go. The result must have the strip's size. Frames made on demand
    /// are processed one at a time, as ``transformingFrames(_:)`` does.
    func transformingPixels(
        _ body: @escaping @Sendable (VipsImageHandle) throws(ImageError) -> VipsImageHandle
    ) throws(ImageError) -> Image {
        if makesFramesOnDemand { return try transformingFrames(body) }
        let result = try body(handle)
        return result === handle ? self : try finishing(result)
    }

    /// Computes `result` (all frames, stacked) into memory and wraps it as an image with
    /// this image's format, frame timing, provenance and scale.
    private func finishing(_ result: VipsImageHandle) throws(ImageError) -> Image {
        let normalised = try VipsTransform.normalise(result)
        guard let memory = vips_image_copy_memory(normalised.pointer) else {
            throw .invalidTransform("computing the transformed pixels failed in libvips: \(Vips.takeError())")
        }
        var owned = VipsImageHandle(memory)
        // copy_memory hands back the same (shared) image when it already is in memory;
        // header fields are only ever set on an image of our own.
        if memory == normalised.pointer {
            let shared = owned
            owned = try Vips.run("copying", failure: .invalidTransform) { wi_copy(shared.pointer, $0) }
        }
        if frameCount > 1 {
            wi_set_int(owned.pointer, "page-height", Int32(owned.height / frameCount))
            wi_set_int(owned.pointer, "loop", Int32(loopCount))
            var delays = frameDurations.map { Int32(($0 * 1000).rounded()) }
            wi_set_int_array(owned.pointer, "delay", &delays, Int32(delays.count))
        } else {
            // A still result must not carry a stale frame height an encoder would act on.
            wi_remove(owned.pointer, "page-height")
        }
        return Image(
            handle: owned, format: format, frameCount: frameCount, frameDurations: frameDurations,
            loopCount: loopCount, sourceOrientation: sourceOrientation,
            loadedPixelSize: loadedPixelSize, sourcePixelSize: sourcePixelSize, scale: scale
        )
    }
}
