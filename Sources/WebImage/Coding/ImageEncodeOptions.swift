/// How ``ImageCoder/encode(_:options:)`` writes an ``Image``.
public struct ImageEncodeOptions: Sendable, Hashable {
    /// An opaque colour, 0–255 a channel.
    public struct Color: Sendable, Hashable {
        /// Red, green and blue, 0–255.
        public var red, green, blue: Int
        /// Creates a colour from 0–255 channel values.
        public init(red: Int, green: Int, blue: Int) {
            self.red = red
            self.green = green
            self.blue = blue
        }
        /// White.
        public static let white = Color(red: 255, green: 255, blue: 255)
        /// Black.
        public static let black = Color(red: 0, green: 0, blue: 0)
    }

    /// The format to write. Must be writable (``ImageFormat/isWritable``).
    public var format: ImageFormat
    /// Quality 1–100 for lossy formats (JPEG, WebP, AVIF, HEIC); PNG, GIF and TIFF ignore it.
    public var quality: Int
    /// The largest acceptable result in bytes. Lossy formats lower the quality until the
    /// result fits; when even the lowest quality does not fit, encoding fails.
    public var maxFileSize: Int?
    /// The colour alpha is composited over when the format has no alpha (JPEG).
    public var backgroundColor: Color
    /// Leave out metadata (EXIF, XMP, ICC comments) from the output.
    public var stripMetadata: Bool
    /// Write a progressive JPEG / interlaced PNG.
    public var progressive: Bool
    /// Lossless WebP / AVIF.
    public var lossless: Bool
    /// What becomes of an ICC profile: `true` keeps it (also when ``stripMetadata`` is
    /// set), `false` converts the pixels to sRGB and leaves it out, `nil` treats it as
    /// the rest of the metadata (kept or stripped with it, the pixels untouched).
    public var keepColorProfile: Bool?
    /// With ``stripMetadata``: keep the EXIF Copyright and Artist tags.
    public var keepCopyright: Bool

    /// Creates encode options.
    public init(
        format: ImageFormat,
        quality: Int = 80,
        maxFileSize: Int? = nil,
        backgroundColor: Color = .white,
        stripMetadata: Bool = true,
        progressive: Bool = false,
        lossless: Bool = false,
        keepColorProfile: Bool? = nil,
        keepCopyright: Bool = false
    ) {
        self.format = format
        self.quality = quality
        self.maxFileSize = maxFileSize
        self.backgroundColor = backgroundColor
        self.stripMetadata = stripMetadata
        self.progressive = progressive
        self.lossless = lossless
        self.keepColorProfile = keepColorProfile
        self.keepCopyright = keepCopyright
    }
}
