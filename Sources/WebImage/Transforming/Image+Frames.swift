import CVips

extension Image {
    /// Applies `body` to each frame on its own and joins the results back into one image,
    /// keeping frame durations and loop count: the way geometric transforms (resize, crop,
    /// rotate, blur…) treat an animation, whose frames libvips stores as one tall strip
    /// ("toilet roll", `page-height` tall each). Every frame must come out the same size.
    /// `body` receives a lazy frame and returns a lazy result; the result is finished in
    /// memory here, so the returned image owns its pixels.
    func transformingFrames(
        _ body: (VipsImageHandle) throws(ImageError) -> VipsImageHandle
    ) throws(ImageError) -> Image {
        if frameCount == 1 {
            let result = try body(handle)
            return result === handle ? self : try finishing(result)
        }
        let height = pixelSize.height
        var frames: [VipsImageHandle] = []
        frames.reserveCapacity(frameCount)
        for index in 0..<frameCount {
            let frame = try VipsTransform.extract(handle, PixelRect(x: 0, y: index * height, width: pixelSize.width, height: height))
            frames.append(try VipsTransform.normalise(try body(frame)))
        }
        let first = frames[0]
        guard frames.allSatisfy({ $0.width == first.width && $0.height == first.height && $0.bands == first.bands }) else {
            throw .invalidTransform("the frames of the \(frameCount)-frame animation came out in different sizes; use a transform whose result does not depend on the frame's content")
        }
        var pointers: [UnsafeMutablePointer<VipsImage>?] = frames.map { $0.pointer }
        let joined = try Vips.run("joining \(frameCount) frames", failure: .invalidTransform) { out in
            pointers.withUnsafeMutableBufferPointer { wi_arrayjoin_vertical($0.baseAddress, Int32($0.count), out) }
        }
        return try finishing(joined)
    }

    /// Applies `body` to all frames at once: for point operations (tint, grayscale,
    /// flattening), where no pixel depends on its neighbours, so the frame strip can be
    /// processed in one go. The result must have the strip's size.
    func transformingPixels(
        _ body: (VipsImageHandle) throws(ImageError) -> VipsImageHandle
    ) throws(ImageError) -> Image {
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
