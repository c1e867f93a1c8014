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
    /// Device pixel ratio multiplying the requested size and pixel offsets (`dpr`), 0 < dpr ≤ 8.
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
    /// Encoder quality 1…100 (`quality`, `q`); `nil` (or `q:0`) leaves it to the server.
    public var quality: Int?
    /// Largest encoded size in bytes (`max_bytes`, `mb`); the encoder lowers the quality to meet it.
    public var maxBytes: Int?
    /// Output format (`format`, `f`, `ext`, or the URL's extension); `nil` lets the server choose.
    public var format: ImageFormat?
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

    /// Options at their defaults: the source as it is.
    public init() {}
}
