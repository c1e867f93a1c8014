import WebImage

/// The whole processing of a proxy URL as one `ImageTransformer`: it plans for the size
/// of the image it is given and runs that plan's pipeline. The proxy hands it to the
/// `ImageManager` in an `ImageRequest`, so the variant is made and cached by the library
/// pipeline, with ``ProcessingOptions/thumbnailPixelSize`` as the request's thumbnail size
/// (or ``shrinkOnLoadSize(forSourceSize:)``) for shrink-on-load.
///
/// Key: `proxy-` and the options' ``ProcessingOptions/transformKey`` with `/` written as `,`
/// and any byte outside `A-Z a-z 0-9 . _ - : ,` percent-encoded (a key must be safe in a
/// file name), e.g. `proxy-rt:fill,w:300,h:200`; `,linear` when resizing in linear light.
public struct ProxyTransformer: ImageTransformer {
    /// The options carried out.
    public let options: ProcessingOptions
    /// The server's watermark image, put on when the options ask for a watermark.
    public let watermark: ProxyWatermark?
    /// Whether resizes work in linear light (the server's `--use-linear-colorspace`), the
    /// shrink-on-load decode's resample included.
    public let linearLight: Bool

    /// Creates the transformer of `options`, with the server's watermark image if it has one.
    public init(options: ProcessingOptions, watermark: ProxyWatermark? = nil, linearLight: Bool = false) {
        self.options = options
        self.watermark = watermark
        self.linearLight = linearLight
    }

    /// ``linearLight``.
    public var resizesInLinearLight: Bool { linearLight }

    /// `proxy-` and the options' transform key (less what only the encoder reads), file-name
    /// safe (see the type's description), then `,wmid:<digest>` naming the watermark image
    /// when one is put on, and `,linear` in linear light.
    public var key: String {
        var key = "proxy-"
        for byte in options.transformKey.utf8 {
            switch byte {
            case UInt8(ascii: "/"):
                key.append(",")
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: ","):
                key.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                key += byte < 16 ? "%0" + hex : "%" + hex
            }
        }
        if options.watermark != nil, let watermark { key += ",wmid:" + watermark.digest }
        if linearLight { key += ",linear" }
        return key
    }

    /// The size a source of `sourceSize` (upright) may be decoded at: the source fitted into
    /// ``ProcessingOptions/decodeHint(sourceSize:)``'s box, when the plan shrinks it by half
    /// or more. The plan is made for the source's size and resizes from the decoded one.
    public func shrinkOnLoadSize(forSourceSize sourceSize: PixelSize) -> PixelSize? {
        guard let box = options.decodeHint(sourceSize: sourceSize) else { return nil }
        let scale = min(Double(box.width) / Double(sourceSize.width), Double(box.height) / Double(sourceSize.height))
        guard scale < 1 else { return nil }
        return PixelSize(
            width: max(1, Int((Double(sourceSize.width) * scale).rounded())),
            height: max(1, Int((Double(sourceSize.height) * scale).rounded()))
        )
    }

    /// The plan's output size for an image of `inputSize` (before a `trim`, which the
    /// pixels decide).
    public func outputSize(forInputSize inputSize: PixelSize) -> PixelSize? {
        options.raw ? inputSize : ProcessingGeometry(options: options, sourceSize: inputSize).outputSize
    }

    /// The largest image the plan makes from an image of `inputSize`: the turned image, the
    /// resized one before its crop, a canvas of `extend`, `extend_aspect_ratio` or
    /// `padding`, or the output (the watermark goes on the output, at its size).
    public func largestSize(forInputSize inputSize: PixelSize) -> PixelSize {
        options.raw ? inputSize : PixelSize.largest(of: ProcessingGeometry(options: options, sourceSize: inputSize).madeSizes)
    }

    /// Trims `image` (`trim`), plans for its size and runs the plan's pipeline, then puts
    /// the watermark on; returns `image` itself when nothing is to be done.
    ///
    /// An image decoded smaller than its source (shrink-on-load) is planned for the
    /// source's size, so the output is what the full-size source would give (except an
    /// embedded thumbnail read for `enforce_thumbnail`, which stands for the image).
    public func transform(_ image: Image) throws(ImageError) -> Image {
        let source = try trimmed(image)
        let plan: ProcessingPlan
        // An embedded thumbnail (`enforce_thumbnail`) is the image itself, as in imgproxy.
        if options.trim == nil, options.crop == nil, options.enforceThumbnail != true, Self.isShrunkOnLoad(image) {
            plan = options.plan(
                for: image.sourcePixelSize, orientation: image.sourceOrientation, decodedSize: image.pixelSize, linearLight: linearLight
            )
        } else {
            plan = options.plan(for: source.pixelSize, orientation: image.sourceOrientation, linearLight: linearLight)
        }
        let processed = plan.isIdentity ? source : try plan.pipeline.transform(source)
        return try watermarked(processed)
    }

    /// Whether `image` is its source decoded smaller with its aspect ratio kept (within
    /// rounding), as shrink-on-load decodes it.
    static func isShrunkOnLoad(_ image: Image) -> Bool {
        let size = image.pixelSize
        let source = image.sourcePixelSize
        guard source != size, size.width <= source.width, size.height <= source.height, size.width > 0, size.height > 0 else {
            return false
        }
        let expectedHeight = Double(source.height) * Double(size.width) / Double(source.width)
        let expectedWidth = Double(source.width) * Double(size.height) / Double(source.height)
        return abs(expectedHeight - Double(size.height)) <= 1 || abs(expectedWidth - Double(size.width)) <= 1
    }
}
