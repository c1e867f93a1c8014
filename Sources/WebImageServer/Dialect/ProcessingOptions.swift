import WebImage

/// Everything a proxy URL asks to be done to the source image, after aliases, meta-options
/// (`resize`, `size`) and presets are resolved. Later options in a URL override earlier ones.
///
/// The defaults are imgproxy's: no resize, `fit`, centre gravity, no enlarging or extending.
public struct ProcessingOptions: Sendable, Hashable {
    /// How to resize (`resizing_type`, `rt`).
    public var resizingType: ResizingType = .fit
    /// Requested width in CSS pixels before ``dpr`` (`width`, `w`); 0 derives it from the height.
    public var width: Int = 0
    /// Requested height in CSS pixels before ``dpr`` (`height`, `h`); 0 derives it from the width.
    public var height: Int = 0
    /// Device pixel ratio multiplying the requested size, pixel offsets and padding (`dpr`),
    /// 0 < dpr ≤ 8; without `enlarge` it never scales the image beyond its own size.
    public var dpr: Double = 1
    /// Whether an image smaller than the requested size is enlarged (`enlarge`, `el`).
    public var enlarge: Bool = false
    /// Whether an image smaller than the requested size is padded up to it (`extend`, `ex`).
    public var extend: Bool = false
    /// Where the image sits inside the padded area when ``extend`` is on.
    public var extendGravity: ProxyGravity = .center
    /// Where to cut when ``ResizingType/fill`` crops (`gravity`, `g`).
    public var gravity: ProxyGravity = .center
    /// An area cut from the source before resizing (`crop`, `c`).
    public var crop: CropOption?
    /// Space added around the result, after ``extend`` (`padding`, `pd`).
    public var padding: ImagePadding?
    /// Encoder quality 1…100 (`quality`, `q`); `nil` (or `q:0`) leaves it to the server.
    public var quality: Int?
    /// Choose the quality per image (`quality:auto[:<target>]`, `q:auto`): the lowest whose
    /// result keeps the SSIM target (the URL's, else the server's).
    public var autoQuality = false
    /// The SSIM target `quality:auto:<target>` gives, 0.5…0.9999; `nil`: the server's.
    public var autoQualityTarget: Double?
    /// Largest encoded size in bytes (`max_bytes`, `mb`); the encoder lowers the quality to meet it.
    public var maxBytes: Int?
    /// Output format (`format`, `f`, `ext`, or the URL's extension); `nil` lets the server choose.
    public var format: ImageFormat?
    /// `format:best`: encode the server's best-format candidates the client accepts and
    /// serve the smallest (``format`` is then `nil`).
    public var bestFormat = false
    /// `format:thumbhash`: answer the ThumbHash of the processed image (base64 text)
    /// instead of the image (``format`` is then `nil`).
    public var thumbHash = false
    /// `gps:1`: an `/info` answer includes the EXIF position.
    public var includeGPS = false
    /// Gaussian blur sigma (`blur`, `bl`), 0 < sigma ≤ 100.
    public var blur: Double?
    /// Sharpen sigma (`sharpen`, `sh`), 0 < sigma ≤ 100.
    public var sharpen: Double?
    /// Clockwise rotation in degrees: 0, 90, 180 or 270 (`rotate`, `rot`).
    public var rotate: Int = 0
    /// Colour that fills transparent areas and the padding of ``extend`` (`background`, `bg`).
    public var background: ImageColor?
    /// Whether metadata (EXIF, XMP, IPTC) is stripped (`strip_metadata`, `sm`); `nil` leaves it to the server.
    public var stripMetadata: Bool?
    /// An opaque string that only changes the URL, and so every cache key (`cachebuster`, `cb`).
    public var cacheBuster: String?
    /// Unix time after which the URL is refused (`expires`, `exp`).
    public var expires: Int?
    /// Serve the source unprocessed (`raw`).
    public var raw: Bool = false

    // MARK: Geometry options of imgproxy's processing tests

    /// Smallest width of the result in CSS pixels before ``dpr`` (`min-width`, `mw`): a
    /// result that would be narrower is scaled up to it; 0 is no minimum.
    public var minWidth: Int = 0
    /// Smallest height of the result, as ``minWidth`` (`min-height`, `mh`).
    public var minHeight: Int = 0
    /// Horizontal scale applied after the resize (`zoom`, `z`), greater than 0.
    public var zoomWidth: Double = 1
    /// Vertical scale applied after the resize (`zoom`, `z`), greater than 0.
    public var zoomHeight: Double = 1
    /// Whether the result is padded to the aspect ratio of the requested size
    /// (`extend_aspect_ratio`, `extend_ar`, `exar`).
    public var extendAspectRatio: Bool = false
    /// Where the image sits inside the padding of ``extendAspectRatio``.
    public var extendAspectRatioGravity: ProxyGravity = .center
    /// Whether the source's EXIF orientation is applied (`auto_rotate`, `ar`).
    public var autoRotate: Bool = true
    /// Mirror left–right after the rotation (`flip`, `fl`, first argument).
    public var flipHorizontal: Bool = false
    /// Mirror top–bottom after the rotation (`flip`, `fl`, second argument).
    public var flipVertical: Bool = false

    // MARK: Output, handling, filter and security options

    /// Opacity 0…1 of ``background`` (`background_alpha`, `bga`); `nil` is opaque.
    public var backgroundAlpha: Double?
    /// Whether the ICC profile is converted to sRGB and left out (`strip_color_profile`,
    /// `scp`); `nil` leaves it to ``stripMetadata``.
    public var stripColorProfile: Bool?
    /// Whether stripping metadata keeps the copyright (`keep_copyright`, `kcr`).
    public var keepCopyright: Bool?
    /// Whether a source with an embedded thumbnail (HEIC, AVIF) is read from that
    /// thumbnail (`enforce_thumbnail`, `eth`).
    public var enforceThumbnail: Bool?
    /// Encoder quality 1…100 by output format (`format_quality`, `fq`), ahead of the
    /// server's default but behind ``quality``.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// Source formats served as they are (`skip_processing`, `skp`): a source in one of
    /// them is not processed when the URL names no format or names the source's own.
    public var skipProcessing: Set<ImageFormat> = []
    /// The file name (without extension) offered in `Content-Disposition` (`filename`,
    /// `fn`); only the response header, never the image, depends on it.
    public var filename: String?
    /// Whether `Content-Disposition` says `attachment` rather than `inline`
    /// (`return_attachment`, `att`); only the response header depends on it.
    public var returnAttachment: Bool?
    /// Surrounding background cut away before anything else (`trim`, `t`).
    public var trim: TrimOption?
    /// Block size in pixels of the pixelate filter (`pixelate`, `pix`); `nil` (or 1) is off.
    public var pixelate: Int?
    /// A watermark put over the result (`watermark`, `wm`).
    public var watermark: WatermarkOption?
    /// Source and result limits of this URL (`max_src_resolution`, `max_src_file_size`,
    /// `max_animation_frames`, `max_animation_frame_resolution`, `max_result_dimension`),
    /// accepted only when the server allows security options in URLs.
    public var limits = URLSecurityLimits()

    /// Options at their defaults: the source as it is.
    public init() {}
}
