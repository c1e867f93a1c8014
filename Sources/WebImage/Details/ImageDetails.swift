import Foundation

/// What an image is, in one value for a page, an API or a log: format, size, frames,
/// alpha, orientation, bytes, the EXIF essentials, its dominant colour and a ThumbHash
/// placeholder. JSON-encodable as it is (`/info` in the proxy, `webimage info --json`).
///
/// Made from the image's bytes with ``init(data:coder:limits:includeGPS:)``, or through the
/// manager, cached and coalesced like a variant, with
/// ``ImageManager/loadDetails(for:includeGPS:options:context:)``.
public struct ImageDetails: Sendable, Hashable, Codable {
    /// The container format.
    public var format: ImageFormat
    /// Width in pixels, upright (EXIF orientation applied).
    public var width: Int
    /// Height in pixels, upright.
    public var height: Int
    /// Number of frames (1 for a still image).
    public var frames: Int
    /// Seconds each frame shows, for an animation.
    public var durations: [Double]?
    /// How many times an animation plays, 0 for forever.
    public var loopCount: Int?
    /// Whether the image has an alpha channel (always, for GIF: a GIF decodes with one
    /// whether or not it uses transparency).
    public var alpha: Bool
    /// The EXIF orientation (1–8) the file declares.
    public var orientation: Int
    /// The size of the file in bytes.
    public var bytes: Int
    /// The colour space the pixels are stored in (`rgb`, `rgb16`, `grey`, `cmyk`…);
    /// `nil` in details read before it was recorded.
    public var colorSpace: ImageColorSpace?
    /// The description of the embedded ICC profile (`Display P3`, `Adobe RGB (1998)`…),
    /// when the file embeds one that has a description. The dominant colour and the
    /// ThumbHash are of the pixels converted to sRGB with it, as a browser shows them.
    public var colorProfile: String?
    /// The EXIF essentials, when the file has any.
    public var exif: ImageExif?
    /// The most common colour, `#rrggbb` (transparent pixels not counted).
    public var dominantColor: String
    /// A ThumbHash of the image, base64: a ~25-byte placeholder a page can show while the
    /// image loads (``ThumbHash/init(base64:)`` then ``ThumbHash/image()`` decodes it).
    public var thumbHash: String

    /// The side of the thumbnail the colour and ThumbHash are computed from.
    static let sampleSide = 100

    /// Reads the facts of an encoded image: its header (limits checked first), EXIF, and a
    /// thumbnail of at most 100 × 100 for the colour and the ThumbHash.
    /// - Parameters:
    ///   - data: the encoded image.
    ///   - coder: the coder that decodes it (EXIF is read by libvips where it can).
    ///   - limits: the pixel and frame limits checked against the header before decoding.
    ///   - includeGPS: whether to include the EXIF position (left out by default).
    /// - Throws: ``ImageError`` for data that is no image or exceeds `limits`.
    public init(
        data: Data, coder: any ImageCoder = VipsCoder.shared, limits: ImageLimits = .default, includeGPS: Bool = false
    ) throws(ImageError) {
        var options = ImageDecodeOptions(limits: limits)
        options.thumbnailPixelSize = PixelSize(width: Self.sampleSide, height: Self.sampleSide)
        let (info, sample) = try coder.decode(data) { _ throws(ImageError) -> ImageDecodeOptions in options }
        format = info.format
        width = info.uprightPixelSize.width
        height = info.uprightPixelSize.height
        frames = info.frameCount
        durations = sample.frameCount > 1 ? sample.frameDurations : nil
        loopCount = sample.frameCount > 1 ? sample.loopCount : nil
        alpha = info.hasAlpha
        orientation = info.orientation
        bytes = data.count
        colorSpace = info.colorSpace
        colorProfile = info.colorProfile?.description
        // The decoded sample carries the file's metadata fields: no second header read.
        exif = ImageExif.read(from: sample.handle, includeGPS: includeGPS)
        // Coders without shrink-on-load hand back every pixel: the sample is made small here.
        let box = PixelSize(width: Self.sampleSide, height: Self.sampleSide)
        let first = try ResizeTransformer(size: box, mode: .fit).transform(try sample.frame(at: 0))
        let pixels = try ThumbHash.rgbaPixels(of: first.handle)
        dominantColor = "#" + String(Self.dominantColor(rgba: pixels).hex.prefix(6))
        // The same pixels: ThumbHash(image:) would fit and read them again.
        thumbHash = try ThumbHash(rgba: pixels, width: first.pixelSize.width, height: first.pixelSize.height).base64
    }

    /// The mean of the most populated bin of a 16-level-per-channel histogram; pixels
    /// under half opacity are not counted (white when none is left).
    static func dominantColor(rgba: [UInt8]) -> ImageColor {
        var counts = [Int](repeating: 0, count: 4096)
        var sums = [SIMD3<Int>](repeating: .zero, count: 4096)
        var index = 0
        while index + 3 < rgba.count {
            defer { index += 4 }
            guard rgba[index + 3] >= 128 else { continue }
            let (red, green, blue) = (Int(rgba[index]), Int(rgba[index + 1]), Int(rgba[index + 2]))
            let bin = (red >> 4) << 8 | (green >> 4) << 4 | blue >> 4
            counts[bin] += 1
            sums[bin] &+= SIMD3(red, green, blue)
        }
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[best] > 0 else {
            return ImageColor(red: 255, green: 255, blue: 255)
        }
        let mean = sums[best] / SIMD3(repeating: counts[best])
        return ImageColor(red: UInt8(mean.x), green: UInt8(mean.y), blue: UInt8(mean.z))
    }
}

extension ImageDetails {
    /// The JSON form: keys sorted, so equal details give equal bytes.
    public static func json(_ details: ImageDetails) throws(ImageError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(details)
        } catch {
            throw .encodingFailed("image details as JSON: \(error)")
        }
    }

    /// Reads the JSON form back.
    /// - Throws: ``ImageError/badImageData(_:)`` when `data` is not details JSON.
    public init(json data: Data) throws(ImageError) {
        do {
            self = try JSONDecoder().decode(ImageDetails.self, from: data)
        } catch {
            throw .badImageData("not image details JSON: \(error)")
        }
    }
}
