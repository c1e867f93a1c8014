import CVips

extension ImageDecodeOptions {
    /// The box an image of `upright` size and `frames` frames must fit in, from
    /// ``thumbnailPixelSize`` and ``scaleDownLimitBytes``; `nil` when it decodes at full size.
    ///
    /// A thumbnail never enlarges: an image that already fits decodes at full size. The
    /// byte limit counts 4 bytes a pixel, every frame.
    func targetBox(for upright: PixelSize, frames: Int) -> PixelSize? {
        var box: PixelSize?
        if let thumbnail = thumbnailPixelSize, thumbnail.width > 0, thumbnail.height > 0,
           upright.width > thumbnail.width || upright.height > thumbnail.height {
            box = thumbnail
        }
        if let limit = scaleDownLimitBytes, limit > 0 {
            let bytes = Double(upright.area) * 4 * Double(frames)
            if bytes > Double(limit) {
                let scale = (Double(limit) / bytes).squareRoot()
                let width = max(1, Int((Double(upright.width) * scale).rounded(.down)))
                let height = max(1, Int((Double(upright.height) * scale).rounded(.down)))
                if let current = box {
                    box = PixelSize(width: min(current.width, width), height: min(current.height, height))
                } else {
                    box = PixelSize(width: width, height: height)
                }
            }
        }
        return box
    }

    /// The exact size an image of `upright` size and `frames` frames decodes to: the
    /// ``targetBox(for:frames:)`` itself, or, with ``preserveAspectRatio``, the image
    /// fitted into it with each side rounded to the nearest pixel (halves up), as
    /// ``ResizeTransformer`` rounds a fit. `nil` when it decodes at full size.
    ///
    /// Whatever the format and its shrink-on-load, the decode ends at this size, so that
    /// a transform planned for the same arithmetic has no resize left to do.
    func targetSize(for upright: PixelSize, frames: Int) -> PixelSize? {
        guard let box = targetBox(for: upright, frames: frames) else { return nil }
        guard preserveAspectRatio else { return box }
        let scale = min(Double(box.width) / Double(upright.width), Double(box.height) / Double(upright.height))
        return PixelSize(
            width: max(1, Int((Double(upright.width) * scale).rounded())),
            height: max(1, Int((Double(upright.height) * scale).rounded()))
        )
    }

    /// `image`, a still image decoded at full size, scaled down as these options ask
    /// (``thumbnailPixelSize``, ``preserveAspectRatio``, ``scaleDownLimitBytes``), with the
    /// same rules and resampling as ``VipsCoder``'s decode. For coders that cannot shrink
    /// while decoding; `image` itself when no scaling is asked for or needed.
    func scaledDown(_ image: Image) throws(ImageError) -> Image {
        precondition(!image.isAnimated, "scaledDown(_:) handles still images only")
        guard let target = targetSize(for: image.pixelSize, frames: 1) else { return image }
        let source = image.handle
        // The pixels are upright already: no EXIF rotation.
        let thumbnail = try Vips.run("thumbnail") {
            wi_thumbnail_image(source.pointer, $0, Int32(target.width), Int32(target.height), Int32(VIPS_SIZE_FORCE.rawValue), 1, resizesInLinearLight ? 1 : 0)
        }
        let normalised = try VipsDecode.normalise(thumbnail)
        guard let memory = vips_image_copy_memory(normalised.pointer) else {
            throw .badImageData("cannot scale the decoded \(image.format.rawValue) image: \(Vips.takeError())")
        }
        return Image(
            handle: VipsImageHandle(memory), format: image.format, frameCount: 1, frameDurations: [], loopCount: 0,
            sourceOrientation: image.sourceOrientation, loadedPixelSize: image.loadedPixelSize,
            sourcePixelSize: image.sourcePixelSize
        )
    }
}
