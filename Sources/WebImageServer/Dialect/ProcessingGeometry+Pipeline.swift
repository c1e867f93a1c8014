import WebImage

extension ProcessingGeometry {
    /// The transformers that carry out the geometry and the options' filters, in order:
    /// rotate, crop, resize, crop to the result, blur, sharpen, pixelate, extend, pad, flatten.
    ///
    /// Every size and rectangle is given exactly, computed by the geometry, so the pipeline
    /// ends at ``outputSize`` and the plan's promise holds.
    func transformers(blur: Double?, sharpen: Double?, pixelate: Int? = nil, background: ImageColor?) -> [any ImageTransformer] {
        var steps: [any ImageTransformer] = []
        if rotation != 0 { steps.append(RotateTransformer(degrees: Double(rotation))) }
        if let sourceCut { steps.append(Self.transformer(for: sourceCut)) }
        if let resize { steps.append(ResizeTransformer(size: resize, mode: .force, enlarge: true)) }
        if let resultCut { steps.append(Self.transformer(for: resultCut)) }
        if let blur { steps.append(BlurTransformer(sigma: blur)) }
        if let sharpen { steps.append(SharpenTransformer(sigma: sharpen)) }
        if let pixelate { steps.append(PixelateTransformer(size: pixelate)) }
        // A translucent background goes under the whole result once, at the end: the added
        // space starts transparent so that it is not covered twice.
        let fill = background.flatMap { $0.isOpaque ? $0 : nil } ?? .transparent
        var current = resultCut?.size ?? resize ?? sourceCut?.size ?? rotatedSize
        for placement in [padding, border].compactMap({ $0 }) {
            steps += Self.extensions(of: current, to: placement, fill: fill)
            current = placement.canvas
        }
        if let background { steps.append(BackgroundTransformer(color: background)) }
        return steps
    }

    /// Puts an image of `size` at an exact pixel position on a larger canvas with two
    /// paddings: first the space above and to the left (the image anchored bottom-right),
    /// then below and to the right.
    private static func extensions(of size: PixelSize, to placement: Placement, fill: ImageColor) -> [ExtendTransformer] {
        var steps: [ExtendTransformer] = []
        if placement.x > 0 || placement.y > 0 {
            let leading = PixelSize(width: placement.x + size.width, height: placement.y + size.height)
            steps.append(ExtendTransformer(size: leading, gravity: .southEast, background: fill))
        }
        steps.append(ExtendTransformer(size: placement.canvas, gravity: .northWest, background: fill))
        return steps
    }

    private static func transformer(for cut: Cut) -> CropTransformer {
        switch cut {
        case .rect(let x, let y, let width, let height): CropTransformer(rect: PixelRect(x: x, y: y, width: width, height: height))
        case .smart(let width, let height): CropTransformer(size: PixelSize(width: width, height: height), gravity: .smart)
        }
    }
}
