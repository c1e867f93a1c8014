import CVips

/// Cuts a region out of the image: a rectangle, or a size placed by a ``Gravity``.
///
/// The region is clamped to the image; a rectangle entirely outside it is an
/// ``ImageError/invalidTransform(_:)``. For a size, 0 in a dimension keeps the image's
/// full extent in it. An animation is cut frame by frame, all at the same place (a smart
/// crop of an animation is centred).
///
/// Key: `crop-<x>-<y>-<W>x<H>` for a rectangle, `crop-<W>x<H>-<gravity>` for a size:
/// `crop-10-20-100x50`, `crop-100x50-sm`.
public struct CropTransformer: ImageTransformer {
    /// What a crop keeps.
    public enum Region: Sendable, Hashable {
        /// This rectangle (clamped to the image).
        case rect(PixelRect)
        /// A region of this size (clamped to the image) at the gravity.
        case size(PixelSize, Gravity)
    }

    /// The region kept.
    public let region: Region

    /// Keeps `rect`, clamped to the image.
    public init(rect: PixelRect) {
        region = .rect(rect)
    }

    /// Keeps a region of `size` (clamped to the image; 0 = the full width or height)
    /// placed by `gravity`.
    public init(size: PixelSize, gravity: Gravity = .center) {
        region = .size(size, gravity)
    }

    /// `crop-<x>-<y>-<W>x<H>` for a rectangle, `crop-<W>x<H>-<gravity>` for a size.
    public var key: String {
        switch region {
        case .rect(let rect):
            "crop-\(TransformKey.number(rect.x))-\(TransformKey.number(rect.y))-\(TransformKey.size(rect.size))"
        case .size(let size, let gravity):
            "crop-\(TransformKey.size(size))-\(gravity.keyComponent)"
        }
    }

    /// Cuts ``region`` out of every frame, clamped to the image; an empty rectangle or one
    /// outside the image fails with ``ImageError/invalidTransform(_:)``.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        let bounds = image.pixelSize
        switch region {
        case .rect(let rect):
            guard rect.width > 0, rect.height > 0 else {
                throw .invalidTransform("crop rectangle \(rect) is empty: give it a positive width and height")
            }
            guard let clamped = rect.clamped(to: bounds) else {
                throw .invalidTransform("crop rectangle \(rect) lies outside the \(bounds) image: move it inside")
            }
            if clamped.size == bounds { return image }
            return try image.transformingFrames { frame throws(ImageError) in try VipsTransform.extract(frame, clamped) }
        case .size(let size, let gravity):
            guard size.width >= 0, size.height >= 0 else {
                throw .invalidTransform("crop size \(size) is negative: use 0 or more (0 keeps the full width or height)")
            }
            try gravity.validate()
            let kept = PixelSize(
                width: size.width == 0 ? bounds.width : min(size.width, bounds.width),
                height: size.height == 0 ? bounds.height : min(size.height, bounds.height)
            )
            if kept == bounds { return image }
            if gravity == .smart, !image.isAnimated {
                return try image.transformingFrames { frame throws(ImageError) in
                    try Vips.run("smart crop to \(kept)", failure: .invalidTransform) {
                        wi_smartcrop(frame.pointer, $0, Int32(kept.width), Int32(kept.height), Int32(VIPS_INTERESTING_ATTENTION.rawValue))
                    }
                }
            }
            let offset = gravity.offset(of: kept, in: bounds)
            let rect = PixelRect(x: offset.x, y: offset.y, width: kept.width, height: kept.height)
            return try image.transformingFrames { frame throws(ImageError) in try VipsTransform.extract(frame, rect) }
        }
    }
}
