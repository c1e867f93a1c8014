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

    /// The size of one frame as shown: ``pixelSize`` turned a quarter for EXIF
    /// orientations 5–8.
    public var uprightPixelSize: PixelSize {
        orientation >= 5 ? PixelSize(width: pixelSize.height, height: pixelSize.width) : pixelSize
    }

    /// Creates header information.
    public init(format: ImageFormat, pixelSize: PixelSize, frameCount: Int, orientation: Int, hasAlpha: Bool) {
        self.format = format
        self.pixelSize = pixelSize
        self.frameCount = frameCount
        self.orientation = orientation
        self.hasAlpha = hasAlpha
    }
}
