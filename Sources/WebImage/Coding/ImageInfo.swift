/// What an image's header says, read without decoding any pixel.
public struct ImageInfo: Sendable, Hashable {
    /// The container format.
    public var format: ImageFormat
    /// The size of one frame as stored (before EXIF orientation).
    public var pixelSize: PixelSize
    /// Frames in the file.
    public var frameCount: Int
    /// The EXIF orientation (1–8; 1 when absent).
    public var orientation: Int
    /// Whether the image has an alpha channel.
    public var hasAlpha: Bool
    /// Whether the file stores its pixels interlaced (a progressive JPEG, an interlaced
    /// PNG): its decoder holds the whole image at full size before the first row comes
    /// out, whatever size the image is decoded to.
    public var isInterlaced: Bool
    /// The colour space the pixels are stored in. Default ``ImageColorSpace/rgb``.
    public var colorSpace: ImageColorSpace = .rgb
    /// The ICC profile the file embeds, if any: what its pixel values mean
    /// (``ICCProfile/description`` names it).
    public var colorProfile: ICCProfile?
    /// The bytes an interlaced file's decoder holds for each stored pixel (a progressive
    /// JPEG's coefficients, an interlaced PNG's rows), when the coder that read the header
    /// knows them; `nil` otherwise.
    var interlacedBytesPerPixel: Int?

    /// What decoding this file holds at full size, by ``isInterlaced``: the bytes its
    /// coder reported, else 16-bit samples for every band.
    var interlacedBufferBytes: Double {
        guard isInterlaced else { return 0 }
        let perPixel = interlacedBytesPerPixel ?? (hasAlpha ? 8 : 6)
        return Double(pixelSize.width) * Double(pixelSize.height) * Double(perPixel)
    }

    /// The size of one frame as shown: ``pixelSize`` turned a quarter for EXIF
    /// orientations 5–8.
    public var uprightPixelSize: PixelSize {
        orientation >= 5 ? PixelSize(width: pixelSize.height, height: pixelSize.width) : pixelSize
    }

    /// Creates header information.
    public init(format: ImageFormat, pixelSize: PixelSize, frameCount: Int, orientation: Int, hasAlpha: Bool, isInterlaced: Bool = false) {
        self.format = format
        self.pixelSize = pixelSize
        self.frameCount = frameCount
        self.orientation = orientation
        self.hasAlpha = hasAlpha
        self.isInterlaced = isInterlaced
    }
}
