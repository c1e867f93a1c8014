import CVips

extension Image {
    /// An animation whose frames `provide` makes when they are read (``FrameStrip``), with
    /// the timing, format and provenance given. Every frame must come out `frameSize` with
    /// `bands` bands.
    static func framesOnDemand(
        frameSize: PixelSize, frameCount: Int, bands: Int, interpretation: Int32, frameDurations: [Double], loopCount: Int,
        format: ImageFormat, sourceOrientation: Int, loadedPixelSize: PixelSize, sourcePixelSize: PixelSize, scale: Double,
        provide: @escaping FrameStrip.Provider
    ) throws(ImageError) -> Image {
        let (handle, strip) = try FrameStrip.make(
            frameSize: frameSize, frames: frameCount, bands: bands, interpretation: interpretation, provide: provide
        )
        wi_set_int(handle.pointer, "page-height", Int32(frameSize.height))
        wi_set_int(handle.pointer, "loop", Int32(loopCount))
        var delays = frameDurations.map { Int32(($0 * 1000).rounded()) }
        wi_set_int_array(handle.pointer, "delay", &delays, Int32(delays.count))
        return Image(
            handle: handle, format: format, frameCount: frameCount, frameDurations: frameDurations, loopCount: loopCount,
            sourceOrientation: sourceOrientation, loadedPixelSize: loadedPixelSize, sourcePixelSize: sourcePixelSize,
            scale: scale, strip: strip
        )
    }

    /// Whether the frames are made when read instead of held in memory.
    var makesFramesOnDemand: Bool { strip != nil }

    /// This image with its pixels in memory: itself when they are already, else every
    /// frame made once, in order.
    func inMemory() throws(ImageError) -> Image {
        guard let strip else { return self }
        guard let memory = vips_image_copy_memory(handle.pointer) else {
            let reason = Vips.takeError()
            throw strip.failure ?? .badImageData("cannot make the \(frameCount) frames: \(reason)")
        }
        return Image(
            handle: VipsImageHandle(memory), format: format, frameCount: frameCount, frameDurations: frameDurations,
            loopCount: loopCount, sourceOrientation: sourceOrientation, loadedPixelSize: loadedPixelSize,
            sourcePixelSize: sourcePixelSize, scale: scale
        )
    }

    /// The pixels of frame `index` for an operation on it: made by the provider when the
    /// frames are made on demand, else a view of the frame in memory.
    func frameHandle(_ index: Int) throws(ImageError) -> VipsImageHandle {
        if let strip { return try strip.frame(index) }
        if frameCount == 1 { return handle }
        let height = pixelSize.height
        return try VipsTransform.extract(handle, PixelRect(x: 0, y: index * height, width: pixelSize.width, height: height))
    }

    /// The error to throw for a failure `reading` this image's pixels: the provider's own
    /// when its frames are made on demand and it failed, else `reading`.
    func frameFailure(or reading: ImageError) -> ImageError {
        strip?.failure ?? reading
    }
}
