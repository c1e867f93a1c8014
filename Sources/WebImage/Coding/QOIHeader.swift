/// The 14-byte header of a QOI file: magic `qoif`, width and height (big-endian
/// 32-bit), channels (3 RGB, 4 RGBA) and colour space (0 sRGB with linear alpha, 1 all
/// channels linear).
///
/// Parsing checks every field the specification constrains, so a file that gets past it
/// can be decoded into a buffer of exactly `width × height × channels` bytes.
struct QOIHeader: Equatable {
    /// Bytes in the header.
    static let size = 14
    /// The bytes every QOI file starts with.
    static let magic: [UInt8] = Array("qoif".utf8)
    /// The 8 bytes that end every QOI stream: seven zeros and a one.
    static let endMarker: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]
    /// Colour space byte for sRGB colour channels with a linear alpha channel.
    static let colorspaceSRGB: UInt8 = 0

    let width: Int
    let height: Int
    let channels: Int
    let colorspace: UInt8

    /// Pixels in the image (width × height), `Int.max` when that overflows: two 32-bit
    /// fields can declare more than 2⁶³ pixels.
    var pixelCount: Int {
        let product = width.multipliedReportingOverflow(by: height)
        return product.overflow ? .max : product.partialValue
    }

    var pixelSize: PixelSize { PixelSize(width: width, height: height) }

    init(width: Int, height: Int, channels: Int, colorspace: UInt8) {
        self.width = width
        self.height = height
        self.channels = channels
        self.colorspace = colorspace
    }

    /// Reads and validates the header at the start of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        guard bytes.count >= Self.size else {
            throw .badImageData("QOI data of \(bytes.count) bytes is shorter than the \(Self.size)-byte QOI header")
        }
        guard bytes.prefix(4).elementsEqual(Self.magic) else {
            throw .badImageData("not QOI data: it does not start with the magic bytes 'qoif'")
        }
        func bigEndian32(at offset: Int) -> Int {
            Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        }
        width = bigEndian32(at: 4)
        height = bigEndian32(at: 8)
        channels = Int(bytes[12])
        colorspace = bytes[13]
        guard width > 0, height > 0 else {
            throw .badImageData("the QOI header declares a \(width)×\(height) image; width and height must both be at least 1")
        }
        guard channels == 3 || channels == 4 else {
            throw .badImageData("the QOI header declares \(channels) channels; QOI allows 3 (RGB) or 4 (RGBA)")
        }
        guard colorspace <= 1 else {
            throw .badImageData("the QOI header declares colour space \(colorspace); QOI allows 0 (sRGB) or 1 (linear)")
        }
    }

    /// Throws when the image exceeds `limits` (a QOI file has one frame).
    func check(_ limits: ImageLimits) throws(ImageError) {
        try limits.check(frames: 1, frameSize: PixelSize(width: width, height: height))
    }

    /// The header's 14 bytes.
    var bytes: [UInt8] {
        func bigEndian32(_ value: Int) -> [UInt8] {
            [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
        }
        return Self.magic + bigEndian32(width) + bigEndian32(height) + [UInt8(channels), colorspace]
    }
}
