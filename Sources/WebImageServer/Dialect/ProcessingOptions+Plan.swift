import WebImage

extension ProcessingOptions {
    /// The plan for a source of `sourceSize` pixels, upright (the decoder applies its EXIF
    /// `orientation`; with ``autoRotate`` off the plan takes it back off):
    /// orient, rotate, flip, crop, resize, crop to the result, blur, sharpen, pixelate,
    /// extend, pad, flatten — imgproxy's steps and arithmetic, with every size after the
    /// rotation measured on the rotated image.
    ///
    /// When the image is decoded smaller than the source (shrink-on-load with
    /// ``thumbnailPixelSize`` or ``decodeHint(sourceSize:)``), pass the source's size as
    /// `sourceSize` and the decoded size as `decodedSize`: the pipeline then resizes the
    /// decoded image straight to the planned size.
    /// With ``raw`` the plan does nothing: the source is served as it is. `linearLight`
    /// resizes in linear light (imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`).
    public func plan(for sourceSize: PixelSize, orientation: Int = 1, decodedSize: PixelSize? = nil, linearLight: Bool = false) -> ProcessingPlan {
        let geometry = raw ? nil : ProcessingGeometry(options: self, sourceSize: sourceSize, orientation: orientation)
        let decodedSmaller = decodedSize.map { $0 != sourceSize } ?? false
        let steps = geometry?.transformers(
            blur: blur, sharpen: sharpen, pixelate: pixelate, background: effectiveBackground, decodedSmaller: decodedSmaller,
            linearLight: linearLight
        )
        return ProcessingPlan(
            outputSize: geometry?.outputSize ?? sourceSize,
            pipeline: TransformerPipeline(steps ?? []),
            quality: quality,
            maxBytes: maxBytes,
            format: format,
            stripMetadata: stripMetadata ?? true,
            background: effectiveBackground
        )
    }

    /// A decode size for shrink-on-load that needs no knowledge of the source: set it as
    /// the decoder's `thumbnailPixelSize` (aspect ratio preserved, never enlarging); the
    /// decoded image is at least as large as the plan's resize, and the plan made for the
    /// source's size (see ``plan(for:orientation:decodedSize:linearLight:)``) resizes it from there.
    ///
    /// Only `fit` resizes without `crop`, `trim`, `zoom`, `min-width`, `min-height` or
    /// `auto_rotate:0` have one: what a `fill` must cover depends on the source's aspect
    /// ratio (use ``decodeHint(sourceSize:)`` once the header is read).
    /// The box is in source orientation: a 90° or 270° rotation swaps it.
    public var thumbnailPixelSize: PixelSize? {
        guard !raw, crop == nil, trim == nil, resizingType == .fit, width > 0 || height > 0, autoRotate,
              zoomWidth == 1, zoomHeight == 1, minWidth == 0, minHeight == 0 else { return nil }
        // An unbounded side: libvips' largest coordinate, which no image exceeds.
        let unbounded = ProcessingGeometry.maxCoordinate
        let scaledWidth = width > 0 ? max(1, ProcessingGeometry.pixels(Double(width) * dpr, .up)) : unbounded
        let scaledHeight = height > 0 ? max(1, ProcessingGeometry.pixels(Double(height) * dpr, .up)) : unbounded
        // The decoder never enlarges: a source smaller than the box decodes at full size.
        return rotate == 90 || rotate == 270
            ? PixelSize(width: scaledHeight, height: scaledWidth)
            : PixelSize(width: scaledWidth, height: scaledHeight)
    }

    /// A decode size for shrink-on-load once the source size is known (from the header):
    /// the image decoded to fit this square box (aspect ratio preserved) still covers every
    /// pixel the plan needs, and the plan made for the source's size resizes it from there.
    /// `nil` when the plan does not shrink the image by at least half, or crops in source
    /// pixels first (`crop`), or trims the full-size source first (`trim`), or keeps the
    /// source's stored orientation (`auto_rotate:0`).
    public func decodeHint(sourceSize: PixelSize) -> PixelSize? {
        guard !raw, crop == nil, trim == nil, autoRotate, sourceSize.width > 0, sourceSize.height > 0 else { return nil }
        let geometry = ProcessingGeometry(options: self, sourceSize: sourceSize)
        guard let resized = geometry.resize else { return nil }
        let rotated = geometry.rotatedSize
        let scale = max(Double(resized.width) / Double(rotated.width), Double(resized.height) / Double(rotated.height))
        guard scale <= 0.5 else { return nil }
        // A square box fits the scaled image whichever way the decoder orients it.
        let side = ProcessingGeometry.pixels(Double(max(rotated.width, rotated.height)) * scale, .up)
        return PixelSize(width: side, height: side)
    }
}
