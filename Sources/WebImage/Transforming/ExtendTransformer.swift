import CVips

/// Pads the image to at least a size, on a background colour: the image keeps its pixels
/// and sits on the larger canvas where the gravity puts it (a focus point (x, y) leaves x
/// of the free width on the left and y of the free height above; ``Gravity/smart`` centres).
///
/// A dimension the image already reaches, or 0, is left as it is. A background that is not
/// opaque gives the image an alpha channel; a colour background turns a grey image into RGB.
///
/// Key: `extend-<W>x<H>-<gravity>-<rrggbbaa>`, e.g. `extend-400x400-ce-00000000`.
public struct ExtendTransformer: ImageTransformer {
    /// The least size of the result.
    public let size: PixelSize
    /// Where the image sits on the canvas.
    public let gravity: Gravity
    /// The colour of the added pixels.
    public let background: ImageColor

    /// Creates a padding to at least `size`.
    public init(size: PixelSize, gravity: Gravity = .center, background: ImageColor = .transparent) {
        self.size = size
        self.gravity = gravity
        self.background = background
    }

    /// `extend-<W>x<H>-<gravity>-<rrggbbaa>` of ``size``, ``gravity`` and ``background``.
    public var key: String {
        "extend-\(TransformKey.size(size))-\(gravity.keyComponent)-\(background.hex)"
    }

    /// The canvas: at least ``size``, and never smaller than the input.
    public func outputSize(forInputSize inputSize: PixelSize) -> PixelSize? {
        guard size.width >= 0, size.height >= 0 else { return nil }
        return PixelSize(width: max(size.width, inputSize.width), height: max(size.height, inputSize.height))
    }

    /// Pads every frame to at least ``size`` on ``background``, placed by ``gravity``; an image
    /// already that large is returned as it is.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        guard size.width >= 0, size.height >= 0 else {
            throw .invalidTransform("extend to \(size): width and height must be 0 or more (0 keeps that dimension)")
        }
        try gravity.validate()
        let source = image.pixelSize
        let canvas = PixelSize(width: max(size.width, source.width), height: max(size.height, source.height))
        if canvas == source { return image }
        try VipsTransform.checkOutput(canvas, frames: image.frameCount, by: "extend \(key)")
        let position = gravity.placement(of: source, on: canvas)
        let background = self.background
        return try image.transformingFrames { frame throws(ImageError) in
            let prepared = try VipsTransform.prepare(frame, for: background, addAlpha: !background.isOpaque)
            let values = VipsTransform.values(of: background, for: prepared)
            return try Vips.run("extending to \(canvas)", failure: .invalidTransform) { out in
                values.withUnsafeBufferPointer {
                    wi_embed_background(
                        prepared.pointer, out, Int32(position.x), Int32(position.y),
                        Int32(canvas.width), Int32(canvas.height), $0.baseAddress, Int32($0.count)
                    )
                }
            }
        }
    }
}
