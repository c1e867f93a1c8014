import WebImage

extension ProcessingGeometry {
    /// The transformers that carry out the geometry and the options' filters, in order:
    /// orient (`auto_rotate:0`), rotate, flip, crop, resize, crop to the result, blur,
    /// sharpen, pixelate, extend, extend to the aspect ratio, pad, flatten.
    ///
    /// Every size and rectangle is given exactly, computed by the geometry, so the pipeline
    /// ends at ``outputSize`` and the plan's promise holds. With `decodedSmaller` the image
    /// the pipeline is given is decoded smaller than the planned source (shrink-on-load):
    /// the resize then starts from it whatever its size. `linearLight`: the resize works in
    /// linear light.
    func transformers(
        blur: Double?, sharpen: Double?, pixelate: Int? = nil, background: ImageColor?, decodedSmaller: Bool = false,
        linearLight: Bool = false
    ) -> [any ImageTransformer] {
        var steps: [any ImageTransformer] = Self.unorienting(unorientation)
        if rotation != 0 { steps.append(RotateTransformer(degrees: Double(rotation))) }
        if flipHorizontal || flipVertical { steps.append(FlipTransformer(horizontal: flipHorizontal, vertical: flipVertical)) }
        if let sourceCut { steps.append(Self.transformer(for: sourceCut)) }
        if let size = resize ?? (decodedSmaller ? sourceCut?.size ?? rotatedSize : nil) {
            steps.append(ResizeTransformer(size: size, mode: .force, enlarge: true, linearLight: linearLight))
        }
        if let resultCut { steps.append(Self.transformer(for: resultCut)) }
        if let blur { steps.append(BlurTransformer(sigma: blur)) }
        if let sharpen { steps.append(SharpenTransformer(sigma: sharpen)) }
        if let pixelate { steps.append(PixelateTransformer(size: pixelate)) }
        // A translucent background goes under the whole result once, at the end: the added
        // space starts transparent so that it is not covered twice.
        let fill = background.flatMap { $0.isOpaque ? $0 : nil } ?? .transparent
        var current = resultCut?.size ?? resize ?? sourceCut?.size ?? rotatedSize
        for placement in [padding, aspectPadding, border].compactMap({ $0 }) {
            steps += Self.extensions(of: current, to: placement, fill: fill)
            current = placement.canvas
        }
        if let background { steps.append(BackgroundTransformer(color: background)) }
        return steps
    }

    /// The steps that take an EXIF `orientation` (applied at decode) back off the image.
    static func unorienting(_ orientation: Int) -> [any ImageTransformer] {
        switch orientation {
        case 2: [FlipTransformer(horizontal: true, vertical: false)]
        case 3: [RotateTransformer(degrees: 180)]
        case 4: [FlipTransformer(horizontal: false, vertical: true)]
        case 5: [RotateTransformer(degrees: 90), FlipTransformer(horizontal: true, vertical: false)]
        case 6: [RotateTransformer(degrees: 270)]
        case 7: [RotateTransformer(degrees: 270), FlipTransformer(horizontal: true, vertical: false)]
        case 8: [RotateTransformer(degrees: 90)]
        default: []
        }
    }

    /// Puts an image of `size` at an exact pixel position on a canvas: first what falls
    /// outside a smaller canvas is cut away, then two paddings: the space above and to the
    /// left (the image anchored bottom-right), then below and to the right.
    private static func extensions(of size: PixelSize, to placement: Placement, fill: ImageColor) -> [any ImageTransformer] {
        var steps: [any ImageTransformer] = []
        var size = size
        if placement.canvas.width < size.width || placement.canvas.height < size.height {
            size = PixelSize(width: min(size.width, placement.canvas.width), height: min(size.height, placement.canvas.height))
            steps.append(CropTransformer(rect: PixelRect(x: 0, y: 0, width: size.width, height: size.height)))
        }
        if placement.x > 0 || placement.y > 0 {
            let leading = PixelSize(width: placement.x + size.width, height: placement.y + size.height)
            steps.append(ExtendTransformer(size: leading, gravity: .southEast, background: fill))
        }
        if placement.canvas != PixelSize(width: placement.x + size.width, height: placement.y + size.height) {
            steps.append(ExtendTransformer(size: placement.canvas, gravity: .northWest, background: fill))
        }
        return steps
    }

    private static func transformer(for cut: Cut) -> CropTransformer {
        switch cut {
        case .rect(let x, let y, let width, let height): CropTransformer(rect: PixelRect(x: x, y: y, width: width, height: height))
        case .smart(let width, let height): CropTransformer(size: PixelSize(width: width, height: height), gravity: .smart)
        }
    }
}

extension ProcessingGeometry {
    /// The sizes of the images the plan makes, in order: the turned image (when it turns
    /// or flips), the resized one, the canvases, the output. Crops are views of the image
    /// they cut, and make none.
    var madeSizes: [PixelSize] {
        let turns = unorientation != 1 || rotation != 0 || flipHorizontal || flipVertical
        return [turns ? rotatedSize : nil, resize, padding?.canvas, aspectPadding?.canvas, border?.canvas, outputSize].compactMap { $0 }
    }
}
