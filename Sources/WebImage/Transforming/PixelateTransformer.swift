import CVips

/// Pixelates the image: each ``size`` × ``size`` block takes the mean colour of its
/// pixels, counted from the top-left corner; blocks cut by the right or bottom edge are
/// averaged as if the image went on mirrored. Alpha is premultiplied while averaging so
/// transparent pixels lend no colour. Each frame of an animation is pixelated on its own.
/// A size of 1 (or larger than the image, which then counts as one block) changes nothing
/// beyond that.
///
/// Key: `pixelate-<size>`, e.g. `pixelate-8`.
public struct PixelateTransformer: ImageTransformer {
    /// The block size in pixels, 1 or more.
    public let size: Int

    /// Creates a pixelation in blocks of `size` pixels.
    public init(size: Int) {
        self.size = size
    }

    /// `pixelate-` and ``size``, e.g. `pixelate-8`.
    public var key: String { "pixelate-\(size)" }

    /// Pixelates each frame in blocks of ``size`` pixels; a size below 1 fails with
    /// ``ImageError/invalidTransform(_:)``.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        guard size >= 1 else {
            throw .invalidTransform("pixelate size \(size) must be 1 or more (the block size in pixels, e.g. 8)")
        }
        let block = min(size, max(image.pixelSize.width, image.pixelSize.height))
        guard block > 1 else { return image }
        return try image.transformingFrames { frame throws(ImageError) in
            try Vips.premultiplied(frame, failure: .invalidTransform) { pixels throws(ImageError) in try Self.pixelate(pixels, block: block) }
        }
    }

    private static func pixelate(_ image: VipsImageHandle, block: Int) throws(ImageError) -> VipsImageHandle {
        let width = image.width, height = image.height
        let paddedWidth = (width + block - 1) / block * block
        let paddedHeight = (height + block - 1) / block * block
        var padded = image
        if paddedWidth > width || paddedHeight > height {
            padded = try Vips.run("mirroring the edge blocks", failure: .invalidTransform) {
                wi_embed_mirror(image.pointer, $0, 0, 0, Int32(paddedWidth), Int32(paddedHeight))
            }
        }
        let source = padded
        let means = try Vips.run("averaging \(block)-pixel blocks", failure: .invalidTransform) {
            wi_shrink(source.pointer, $0, Double(block), Double(block))
        }
        let blocks = try Vips.run("enlarging the blocks", failure: .invalidTransform) {
            wi_zoom(means.pointer, $0, Int32(block), Int32(block))
        }
        return try VipsTransform.extract(blocks, PixelRect(x: 0, y: 0, width: width, height: height))
    }
}
