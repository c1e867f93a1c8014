import Foundation

/// Writes 8-bit pixels as an uncompressed Windows bitmap (BMP), top-down (a negative
/// height in the header), each row padded to four bytes:
///
/// - grey: 8 bits a pixel through a 256-entry grey palette, with a 40-byte
///   `BITMAPINFOHEADER`;
/// - RGB: 24 bits a pixel (blue, green, red), with a 124-byte `BITMAPV5HEADER` that says
///   the colours are sRGB;
/// - RGBA, and grey with alpha (written as RGBA): 32 bits a pixel (blue, green, red,
///   alpha) with the same `BITMAPV5HEADER`, as `BI_BITFIELDS` with the masks `00FF0000`,
///   `0000FF00`, `000000FF` and `FF000000`, so the alpha channel is declared rather than
///   guessed by the reader.
enum BMPEncoder {
    /// The file header's length: `BM`, the file size, two reserved words, the pixels' offset.
    static let fileHeaderSize = 14
    /// The length of `BITMAPINFOHEADER`, used for grey.
    static let infoHeaderSize = 40
    /// The length of `BITMAPV5HEADER`, used for colour.
    static let v5HeaderSize = 124
    /// The grey palette: 256 entries of blue, green, red and a zero byte.
    static let greyPaletteSize = 256 * 4
    /// `BI_RGB`: uncompressed, no masks.
    static let compressionRGB: UInt32 = 0
    /// `BI_BITFIELDS`: uncompressed, the channels given by masks.
    static let compressionBitFields: UInt32 = 3
    /// `LCS_sRGB`, the colour space `'sRGB'` as the header stores it.
    static let colorSpaceSRGB: UInt32 = 0x7352_4742
    /// `LCS_GM_IMAGES`: the rendering intent for pictures.
    static let intentImages: UInt32 = 4

    /// The BMP file of `width × height` pixels, row by row, `channels` bytes a pixel (1 grey,
    /// 2 grey + alpha, 3 RGB, 4 RGBA).
    static func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, channels: Int) throws(ImageError) -> Data {
        precondition((1...4).contains(channels) && pixels.count >= width * height * channels)
        let outputChannels = channels == 2 ? 4 : channels
        let rowSize = (width * outputChannels + 3) & ~3
        let headerSize = outputChannels == 1 ? infoHeaderSize : v5HeaderSize
        let pixelOffset = fileHeaderSize + headerSize + (outputChannels == 1 ? greyPaletteSize : 0)
        let (imageSize, overflow) = rowSize.multipliedReportingOverflow(by: height)
        guard !overflow, width <= Int(Int32.max), height <= Int(Int32.max), pixelOffset + imageSize <= Int(UInt32.max) else {
            throw .encodingFailed("a BMP file holds at most 4 GiB; this \(width) × \(height) image needs \(rowSize) bytes a row: make it smaller")
        }
        var data = Data(capacity: pixelOffset + imageSize)
        // File header.
        data.append(contentsOf: Array("BM".utf8))
        data.appendLittleEndian(UInt32(pixelOffset + imageSize))
        data.appendLittleEndian(UInt32(0))
        data.appendLittleEndian(UInt32(pixelOffset))
        // BITMAPINFOHEADER, the start of every header.
        data.appendLittleEndian(UInt32(headerSize))
        data.appendLittleEndian(UInt32(width))
        data.appendLittleEndian(UInt32(bitPattern: -Int32(height)))
        data.appendLittleEndian(UInt16(1))
        data.appendLittleEndian(UInt16(outputChannels * 8))
        data.appendLittleEndian(outputChannels == 4 ? compressionBitFields : compressionRGB)
        data.appendLittleEndian(UInt32(imageSize))
        data.appendLittleEndian(UInt32(0))
        data.appendLittleEndian(UInt32(0))
        data.appendLittleEndian(UInt32(outputChannels == 1 ? 256 : 0))
        data.appendLittleEndian(UInt32(0))
        if outputChannels == 1 {
            for grey in 0...255 { data.append(contentsOf: [UInt8(grey), UInt8(grey), UInt8(grey), 0]) }
        } else {
            appendV5Fields(to: &data, alpha: outputChannels == 4)
        }
        appendRows(pixels, width: width, height: height, channels: channels, rowSize: rowSize, to: &data)
        return data
    }

    /// What `BITMAPV5HEADER` adds to `BITMAPINFOHEADER`: the masks (zero for `BI_RGB`),
    /// the sRGB colour space, no gamma or profile, the intent for pictures.
    private static func appendV5Fields(to data: inout Data, alpha: Bool) {
        let masks: [UInt32] = alpha ? [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0xFF00_0000] : [0, 0, 0, 0]
        for mask in masks { data.appendLittleEndian(mask) }
        data.appendLittleEndian(colorSpaceSRGB)
        // The CIEXYZTRIPLE end points and the three gammas, unused with sRGB.
        data.append(contentsOf: [UInt8](repeating: 0, count: 36 + 12))
        data.appendLittleEndian(intentImages)
        // Profile offset, profile size, reserved.
        data.append(contentsOf: [UInt8](repeating: 0, count: 12))
    }

    /// The pixel rows, top first: grey as it is, colour as blue, green, red (and alpha),
    /// grey + alpha as RGBA; each row padded with zeros to `rowSize`.
    private static func appendRows(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, channels: Int, rowSize: Int, to data: inout Data) {
        var row = [UInt8](repeating: 0, count: rowSize)
        for y in 0..<height {
            let source = y * width * channels
            for x in 0..<width {
                let p = source + x * channels
                switch channels {
                case 1:
                    row[x] = pixels[p]
                case 2:
                    row[x * 4] = pixels[p]
                    row[x * 4 + 1] = pixels[p]
                    row[x * 4 + 2] = pixels[p]
                    row[x * 4 + 3] = pixels[p + 1]
                default:
                    let q = x * channels
                    row[q] = pixels[p + 2]
                    row[q + 1] = pixels[p + 1]
                    row[q + 2] = pixels[p]
                    if channels == 4 { row[q + 3] = pixels[p + 3] }
                }
            }
            data.append(contentsOf: row)
        }
    }
}
