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
    /// Quality 1–100 for lossy formats (JPEG, WebP, AVIF, HEIC, JPEG XL); PNG, GIF, TIFF, BMP
    /// and ICO ignore it.
    public var quality: Int
    /// The largest acceptable result in bytes. Lossy formats lower the quality until the
    /// result fits; when even the lowest quality does not fit, encoding fails.
    public var maxFileSize: Int?
    /// The colour alpha is composited over when the format has no alpha (JPEG).
    public var backgroundColor: Color
    /// Leave out metadata (EXIF, XMP, ICC comments) from the output.
    public var stripMetadata: Bool
    /// Write a progressive JPEG (libvips' `interlace`): a coarse picture first, refined
    /// by later scans. Default off.
    public var progressive: Bool
    /// Write an interlaced (Adam7) PNG, which a browser can show coarsely before the last
    /// byte arrives. Default off.
    public var pngInterlaced: Bool
    /// Write PNG as a palette image (libvips' `palette`, quantised by libimagequant) instead
    /// of full colour, 2…256. The palette is stored with 1, 2, 4 or 8 bits an entry, the
    /// fewest that hold this many colours, and libimagequant fills it: at most 2, 4, 16 or
    /// 256 colours (16 for 5…16, say). `nil`, the default: full colour.
    public var pngPaletteColors: Int?
    /// libwebp's effort, 0 (fastest) to 6 (slowest, smallest). Default 4.
    public var webpEffort: Int
    /// The kind of picture libwebp tunes lossy WebP for. Default ``WebPPreset/default``.
    public var webpPreset: WebPPreset
    /// The AV1 encoder's effort for AVIF, 0 (fastest) to 9 (slowest, smallest). Default 4.
    public var avifEffort: Int
    /// libjxl's effort for JPEG XL, 1 (fastest) to 9 (slowest, smallest). Default 7.
    /// libvips before 8.15 takes 3 at the least: 1 and 2 are written at 3 there.
    public var jxlEffort: Int
    /// Lossless WebP / AVIF.
    public var lossless: Bool
    /// The colour profile the output carries (``OutputColorProfile``). Default
    /// ``OutputColorProfile/sRGB``: pixels in another profile are converted to sRGB with it.
    public var colorProfile: OutputColorProfile
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
        colorProfile: OutputColorProfile = .sRGB,
        keepCopyright: Bool = false,
        pngInterlaced: Bool = false,
        pngPaletteColors: Int? = nil,
        webpEffort: Int = 4,
        webpPreset: WebPPreset = .default,
        avifEffort: Int = 4,
        jxlEffort: Int = 7
    ) {
        self.format = format
        self.quality = quality
        self.maxFileSize = maxFileSize
        self.backgroundColor = backgroundColor
        self.stripMetadata = stripMetadata
        self.progressive = progressive
        self.lossless = lossless
        self.colorProfile = colorProfile
        self.keepCopyright = keepCopyright
        self.pngInterlaced = pngInterlaced
        self.pngPaletteColors = pngPaletteColors
        self.webpEffort = webpEffort
        self.webpPreset = webpPreset
        self.avifEffort = avifEffort
        self.jxlEffort = jxlEffort
    }
}
