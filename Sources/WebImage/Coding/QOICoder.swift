import Foundation

/// An ``ImageCoder`` for QOI, the "Quite OK Image" format (qoiformat.org), in pure Swift.
///
/// libvips has no QOI loader, so ``VipsCoder`` refuses QOI bytes; this coder reads and
/// writes them. Add it to an ``ImageCodersManager`` next to ``VipsCoder`` to load QOI
/// images through the rest of WebImage, the way a custom coder is added to SDWebImage's
/// `SDImageCodersManager`:
///
/// ```swift
/// let coders = ImageCodersManager()          // starts with VipsCoder.shared
/// coders.addCoder(QOICoder())
/// let manager = ImageManager(coder: coders)
/// ```
///
/// Decoding reads the 14-byte header, checks ``ImageLimits`` and that the data is long
/// enough for the declared size before any pixel buffer is allocated, then decodes
/// strictly: truncated data, a zero size, a channel count other than 3 or 4, a colour
/// space other than 0 or 1, or a missing end marker is ``ImageError/badImageData(_:)``
/// whatever ``ImageDecodeOptions/strictness`` says (QOI has no damage a decoder could
/// skip). Bytes after the end marker are ignored. A thumbnail size or scale-down limit in
/// the options is honoured by resampling the decoded image with libvips, as
/// ``VipsCoder`` does after its own decode; `firstFrameOnly` has nothing to do (a QOI
/// file holds one frame).
///
/// Encoding writes exactly what the reference encoder (`qoi.h`) writes for the same
/// pixels, with colour space 0 (sRGB, linear alpha): RGB for images without alpha, RGBA
/// with it; grey becomes RGB and grey + alpha RGBA. An animation is written as its first
/// frame, since QOI has no animation. QOI is lossless, so the quality, progressive,
/// lossless and maximum-file-size options do not apply.
public struct QOICoder: ImageCoder {
    /// A shared coder; it holds no state.
    public static let shared = QOICoder()

    /// Creates a coder.
    public init() {}

    /// Whether `data` starts with the QOI magic bytes `qoif` and is at least a header long.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat(data: data) == .qoi
    }

    /// Reads the QOI header and checks `limits`; never decodes pixels.
    public func inspect(_ data: Data, limits: ImageLimits = .default) throws(ImageError) -> ImageInfo {
        let header = try Self.header(of: data)
        try header.check(limits)
        return ImageInfo(format: .qoi, pixelSize: header.pixelSize, frameCount: 1, orientation: 1, hasAlpha: header.channels == 4)
    }

    /// Decodes QOI `data` into an RGB or RGBA ``Image`` whose format is ``ImageFormat/qoi``.
    public func decode(_ data: Data, options: ImageDecodeOptions = .init()) throws(ImageError) -> Image {
        let header = try Self.header(of: data)
        try header.check(options.limits)
        try QOIDecoder.checkLength(data.count, header: header)
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) -> [UInt8] in try QOIDecoder.pixels(of: bytes, header: header) }
        }
        let pixels = try result.get()
        let image = try Image(pixels: pixels, width: header.width, height: header.height, channels: header.channels, format: .qoi)
        return try options.scaledDown(image)
    }

    /// Always `nil`: QOI has no progressive form, and a preview of the top rows is not
    /// offered; the image appears when ``decode(_:options:)`` has all the data.
    public func decodePartial(_ data: Data, options: ImageDecodeOptions = .init()) throws(ImageError) -> Image? {
        nil
    }

    /// Whether `format` is ``ImageFormat/qoi``.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .qoi
    }

    /// Encodes `image` (its first frame, for an animation) as QOI; `options.format` must
    /// be ``ImageFormat/qoi``.
    public func encode(_ image: Image, options: ImageEncodeOptions) throws(ImageError) -> Data {
        guard options.format == .qoi else {
            throw .encodingFailed(
                "QOICoder writes only qoi, not \(options.format.rawValue); use VipsCoder, or an ImageCodersManager holding both coders"
            )
        }
        let channels = image.channels
        guard (1...4).contains(channels) else {
            throw .encodingFailed("QOI holds 3 or 4 channels; this image has \(channels)")
        }
        let size = image.pixelSize
        let pixels = try image.pixels()
        // pixels() holds every frame, one after the other: the first comes first.
        guard pixels.count >= size.area * channels else {
            throw .encodingFailed("the image's pixels are \(pixels.count) bytes, fewer than \(size) × \(channels) channels")
        }
        return pixels.withUnsafeBytes { bytes in
            QOIEncoder.encode(bytes, width: size.width, height: size.height, sourceChannels: channels)
        }
    }

    private static func header(of data: Data) throws(ImageError) -> QOIHeader {
        guard !data.isEmpty else { throw .badImageData("the data is empty (0 bytes)") }
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) -> QOIHeader in try QOIHeader(bytes) }
        }
        return try result.get()
    }
}
