import CVips

/// Puts a watermark image over the image: at a gravity with pixel offsets, or tiled over
/// the whole image, at an opacity, optionally scaled to a fraction of the image's size.
///
/// Placed at a gravity, offsets move the mark inwards from the anchored edges (for the
/// centre, right and down), and it may hang partly over the edge; a focus point centres
/// the mark on the point (offsets do not apply), smart gravity is the centre. Tiled, the
/// offsets are the spacing between tiles, which are centred on the image. Each frame of an
/// animation gets the mark at the same place; an animated mark gives its first frame.
///
/// Key: `watermark-<mark key>-<opacity>-<placement>[-s<scale>]`, the placement
/// `<gravity>-<x>-<y>` or `tile-<x>-<y>`, e.g. `watermark-logo-0p5-soea-10-10-s0p2`.
public struct WatermarkTransformer: ImageTransformer {
    /// Where the mark goes.
    public enum Placement: Sendable, Hashable {
        /// At a gravity, moved by offsets in pixels.
        case anchored(Gravity, xOffset: Int, yOffset: Int)
        /// Repeated over the whole image with this spacing in pixels between tiles.
        case tiled(xSpacing: Int, ySpacing: Int)
    }

    /// The watermark.
    public let mark: Image
    /// A name of ``mark`` for the key, unique among the marks one cache sees (a digest of
    /// its bytes, say); characters other than letters, digits, `.`, `_` and `-` are dropped.
    public let markKey: String
    /// Opacity 0…1, multiplying the mark's own alpha.
    public let opacity: Double
    /// Where the mark goes.
    public let placement: Placement
    /// When set (above 0), the mark is resized to fit, enlarged or reduced, into this
    /// fraction of the image's width and height. Above 1 the mark is larger than the image:
    /// only the part over the image is made, so its cost is the image's, whatever the scale.
    public let scale: Double?

    /// Creates a watermark.
    public init(mark: Image, markKey: String, opacity: Double = 1, placement: Placement = .anchored(.center, xOffset: 0, yOffset: 0), scale: Double? = nil) {
        self.mark = mark
        self.markKey = markKey
        self.opacity = opacity
        self.placement = placement
        self.scale = scale
    }

    /// `watermark-<mark key>-<opacity>-<placement>`, plus `-s<scale>` with a scale.
    public var key: String {
        let name = String(markKey.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) })
        let where_: String
        switch placement {
        case .anchored(let gravity, let x, let y): where_ = "\(gravity.keyComponent)-\(TransformKey.number(x))-\(TransformKey.number(y))"
        case .tiled(let x, let y): where_ = "tile-\(TransformKey.number(x))-\(TransformKey.number(y))"
        }
        return "watermark-\(name)-\(TransformKey.number(opacity))-\(where_)" + (scale.map { "-s\(TransformKey.number($0))" } ?? "")
    }

    /// Puts ``mark`` over every frame at ``opacity``, placed by ``placement`` and scaled by
    /// ``scale``; an opacity of 0 returns the image as it is.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        guard opacity.isFinite, (0...1).contains(opacity) else {
            throw .invalidTransform("watermark opacity \(opacity) must be from 0 to 1")
        }
        if let scale, !(scale.isFinite && scale >= 0) {
            throw .invalidTransform("watermark scale \(scale) must be 0 or more (a fraction of the image size, e.g. 0.25)")
        }
        guard opacity > 0 else { return image }
        let frameSize = image.pixelSize
        var prepared = try preparedMark(for: frameSize)
        var origin: (x: Int, y: Int)
        switch placement {
        case .anchored(let gravity, let x, let y):
            origin = Self.position(of: PixelSize(width: prepared.width, height: prepared.height), in: frameSize, gravity: gravity, xOffset: x, yOffset: y)
        case .tiled(let x, let y):
            prepared = try Self.tiled(prepared, over: frameSize, spacing: (x, y))
            origin = (0, 0)
        }
        if let scale, scale > 1 { (prepared, origin) = try Self.visiblePart(of: prepared, at: origin, in: frameSize) }
        let placedAt = origin
        // A grey mark on a colour image turns colour; a colour mark turns a grey image colour.
        let colour = ImageColor(red: 255, green: 0, blue: 0)
        let greyImage = image.channels <= 2
        if !greyImage { prepared = try VipsTransform.prepare(prepared, for: colour, addAlpha: false) }
        let mark = prepared
        let colourMark = !VipsTransform.isGrey(mark)
        return try image.transformingFrames { frame throws(ImageError) in
            var base = frame
            if colourMark, VipsTransform.isGrey(base) {
                base = try VipsTransform.prepare(base, for: colour, addAlpha: false)
            }
            let target = base
            let composited = try Vips.run("compositing the watermark", failure: .invalidTransform) {
                wi_composite_over_at(target.pointer, mark.pointer, $0, Int32(placedAt.x), Int32(placedAt.y))
            }
            guard !target.hasAlpha else { return composited }
            // The image had no alpha: the result keeps none.
            return try Vips.run("dropping the alpha band", failure: .invalidTransform) {
                wi_extract_band(composited.pointer, $0, 0, Int32(composited.bands - 1))
            }
        }
    }

    /// The mark's first frame, scaled, with an alpha band multiplied by the opacity. Scaled
    /// past the image (``scale`` above 1), the mark is left to be computed where it is cut
    /// to the image (``visiblePart(of:at:in:)``).
    private func preparedMark(for frameSize: PixelSize) throws(ImageError) -> VipsImageHandle {
        var source = mark
        var box: PixelSize?
        if let scale, scale > 0 {
            box = PixelSize(
                width: max(1, Int((Double(frameSize.width) * scale).rounded(.toNearestOrEven))),
                height: max(1, Int((Double(frameSize.height) * scale).rounded(.toNearestOrEven)))
            )
        }
        if let box, let scale, scale <= 1 {
            source = try ResizeTransformer(size: box, mode: .fit, enlarge: true).transform(mark)
        }
        var handle = source.handle
        if source.isAnimated {
            handle = try VipsTransform.extract(handle, PixelRect(x: 0, y: 0, width: source.pixelSize.width, height: source.pixelSize.height))
        }
        if let box, let scale, scale > 1 {
            let fit = min(Double(box.width) / Double(handle.width), Double(box.height) / Double(handle.height))
            let first = handle
            handle = try Vips.run("scaling the watermark", failure: .invalidTransform) { wi_resize(first.pointer, $0, fit, fit) }
        }
        handle = try VipsTransform.prepare(handle, for: .white, addAlpha: true)
        guard opacity < 1 else { return handle }
        let colourBands = handle.bands - 1
        let scaleFactors = [Double](repeating: 1, count: colourBands) + [opacity]
        let offsets = [Double](repeating: 0, count: handle.bands)
        let opaque = handle
        return try Vips.run("applying the watermark opacity", failure: .invalidTransform) { out in
            scaleFactors.withUnsafeBufferPointer { a in
                offsets.withUnsafeBufferPointer { b in wi_linear_uchar(opaque.pointer, out, a.baseAddress, b.baseAddress, Int32(a.count)) }
            }
        }
    }

    /// The top-left corner of a mark of `size` in an image of `bounds`, kept so that at
    /// least one pixel of the mark is on the image.
    static func position(of size: PixelSize, in bounds: PixelSize, gravity: Gravity, xOffset: Int, yOffset: Int) -> (x: Int, y: Int) {
        func place(_ anchor: Double, _ outer: Int, _ inner: Int, _ offset: Int) -> Int {
            switch anchor {
            case 0: offset
            case 1: outer - inner - offset
            default: Int((Double(outer - inner + 1) / 2).rounded(.toNearestOrEven)) + offset
            }
        }
        var x: Int, y: Int
        if case .focusPoint(let fx, let fy) = gravity {
            x = Int((Double(bounds.width) * fx).rounded(.toNearestOrEven)) - size.width / 2
            y = Int((Double(bounds.height) * fy).rounded(.toNearestOrEven)) - size.height / 2
        } else {
            let anchor = gravity.anchor
            x = place(anchor.x, bounds.width, size.width, xOffset)
            y = place(anchor.y, bounds.height, size.height, yOffset)
        }
        x = min(max(x, 1 - size.width), bounds.width - 1)
        y = min(max(y, 1 - size.height), bounds.height - 1)
        return (x, y)
    }

    /// The part of `mark`, placed at `origin`, that lies over an image of `bounds`, computed
    /// into memory, and where it goes: a mark larger than the image is never made whole.
    private static func visiblePart(
        of mark: VipsImageHandle, at origin: (x: Int, y: Int), in bounds: PixelSize
    ) throws(ImageError) -> (VipsImageHandle, (x: Int, y: Int)) {
        let left = max(0, origin.x), top = max(0, origin.y)
        let right = min(bounds.width, origin.x + mark.width), bottom = min(bounds.height, origin.y + mark.height)
        let window = PixelRect(x: left - origin.x, y: top - origin.y, width: max(1, right - left), height: max(1, bottom - top))
        let part = try VipsTransform.extract(mark, window)
        guard let memory = vips_image_copy_memory(part.pointer) else {
            throw .invalidTransform("computing the watermark failed in libvips: \(Vips.takeError())")
        }
        return (VipsImageHandle(memory), (left, top))
    }

    /// The mark with the spacing around it (half on each side), repeated an odd number of
    /// times each way to cover `bounds`, cut to `bounds` around the middle tile.
    private static func tiled(_ mark: VipsImageHandle, over bounds: PixelSize, spacing: (x: Int, y: Int)) throws(ImageError) -> VipsImageHandle {
        var tile = mark
        let padX = max(0, spacing.x), padY = max(0, spacing.y)
        if padX > 0 || padY > 0 {
            let values = [Double](repeating: 0, count: mark.bands)
            tile = try Vips.run("spacing the watermark tiles", failure: .invalidTransform) { out in
                values.withUnsafeBufferPointer {
                    wi_embed_background(mark.pointer, out, Int32(padX / 2), Int32(padY / 2), Int32(mark.width + padX), Int32(mark.height + padY), $0.baseAddress, Int32($0.count))
                }
            }
        }
        var across = (bounds.width + tile.width - 1) / tile.width
        var down = (bounds.height + tile.height - 1) / tile.height
        if across.isMultiple(of: 2) { across += 1 }
        if down.isMultiple(of: 2) { down += 1 }
        let single = tile
        let repeated = try Vips.run("tiling the watermark", failure: .invalidTransform) {
            wi_replicate(single.pointer, $0, Int32(across), Int32(down))
        }
        let rect = PixelRect(x: (repeated.width - bounds.width) / 2, y: (repeated.height - bounds.height) / 2, width: bounds.width, height: bounds.height)
        return try VipsTransform.extract(repeated, rect)
    }
}
