import WebImage

extension ProcessingGeometry {
    /// The transformers that carry out the geometry and the options' filters, in order:
    /// rotate, crop, resize, crop to the result, blur, sharpen, extend, flatten.
    ///
    /// Every size and rectangle is given exactly, computed by the geometry, so the pipeline
    /// ends at ``outputSize`` and the plan's promise holds.
    func transformers(blur: Double?, sharpen: Double?, background: ImageColor?) -> [any ImageTransformer] {
        var steps: [any ImageTransformer] = []
        if rotation != 0 { steps.append(RotateTransformer(degrees: Double(rotation))) }
        if let sourceCut { steps.append(Self.transformer(for: sourceCut)) }
        if let resize { steps.append(ResizeTransformer(size: resize, mode: .force, enlarge: true)) }
        if let resultCut { steps.append(Self.transformer(for: resultCut)) }
        if let blur { steps.append(BlurTransformer(sigma: blur)) }
        if let sharpen { steps.append(SharpenTransformer(sigma: sharpen)) }
        if let padding {
            // Two paddings put the image at an exact pixel position: first the space above
            // and to the left (image anchored bottom-right), then below and to the right.
            let fill = background ?? .transparent
            let image = resultCut?.size ?? resize ?? sourceCut?.size ?? rotatedSize
            if padding.x > 0 || padding.y > 0 {
                let leading = PixelSize(width: padding.x + image.width, height: padding.y + image.height)
                steps.append(ExtendTransformer(size: leading, gravity: .southEast, background: fill))
            }
            steps.append(ExtendTransformer(size: padding.canvas, gravity: .northWest, background: fill))
        }
        if let background { steps.append(BackgroundTransformer(color: background)) }
        return steps
    }

    private static func transformer(for cut: Cut) -> CropTransformer {
        switch cut {
        case .rect(let x, let y, let width, let height): CropTransformer(rect: PixelRect(x: x, y: y, width: width, height: height))
        case .smart(let width, let height): CropTransformer(size: PixelSize(width: width, height: height), gravity: .smart)
        }
    }
}
