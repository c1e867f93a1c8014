import Foundation

/// Writes a Windows icon (ICO) holding one image stored as PNG, which every reader since
/// Windows Vista takes: a 6-byte `ICONDIR` (reserved 0, type 1 for an icon, one image),
/// one 16-byte `ICONDIRENTRY`, then the PNG.
///
/// An icon's sides are at most ``maxSide`` pixels: the entry stores each in one byte, 0
/// meaning 256.
enum ICOEncoder {
    /// The longest side an icon has.
    static let maxSide = 256
    /// `ICONDIR` and one `ICONDIRENTRY`: where the PNG starts.
    static let headerSize = 6 + 16

    /// The icon holding `png`, an image of `width × height` pixels, with alpha or without
    /// (the entry's bit count: 32 with alpha, 24 without).
    static func wrap(png: Data, width: Int, height: Int, hasAlpha: Bool) throws(ImageError) -> Data {
        guard (1...maxSide).contains(width), (1...maxSide).contains(height) else {
            throw .encodingFailed("an ICO image is at most \(maxSide) × \(maxSide) pixels; this one is \(width) × \(height): make it smaller")
        }
        var data = Data(capacity: headerSize + png.count)
        // ICONDIR: reserved, type (1: icon), image count.
        data.appendLittleEndian(UInt16(0))
        data.appendLittleEndian(UInt16(1))
        data.appendLittleEndian(UInt16(1))
        // ICONDIRENTRY: width and height (0 is 256), palette size (none), reserved, colour planes,
        // bits a pixel, the image's length and its offset.
        data.append(UInt8(width % maxSide))
        data.append(UInt8(height % maxSide))
        data.append(0)
        data.append(0)
        data.appendLittleEndian(UInt16(1))
        data.appendLittleEndian(UInt16(hasAlpha ? 32 : 24))
        data.appendLittleEndian(UInt32(png.count))
        data.appendLittleEndian(UInt32(headerSize))
        data.append(png)
        return data
    }

    /// The scale that brings `size` within ``maxSide`` on its longer side, as imgproxy's
    /// processing does before saving an icon; `nil` when it already fits.
    static func fittingScale(for size: PixelSize) -> Double? {
        let longest = max(size.width, size.height)
        guard longest > maxSide else { return nil }
        return Double(maxSide) / Double(longest)
    }

    /// The size of the icon written for an image of `size`: `size` scaled by
    /// ``fittingScale(for:)`` and rounded, as libvips rounds a resize.
    static func fittedSize(_ size: PixelSize) -> PixelSize {
        guard let scale = fittingScale(for: size) else { return size }
        func side(_ length: Int) -> Int { min(maxSide, max(1, Int((Double(length) * scale).rounded()))) }
        return PixelSize(width: side(size.width), height: side(size.height))
    }
}
