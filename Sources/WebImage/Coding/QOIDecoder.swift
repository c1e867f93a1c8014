/// Reads the op stream of a QOI file into pixels, as the specification's decoder does,
/// with every read bounds-checked.
///
/// Stricter than the reference decoder, which fills missing pixels with the last one:
/// data that ends before the last pixel, or without the 8-byte end marker after it, is
/// ``ImageError/badImageData(_:)``. Bytes after the end marker are ignored, and a final
/// run longer than the pixels left is cut at the image's end, as the reference does.
enum QOIDecoder {
    /// Throws when `byteCount` bytes (header included) are too few for the header's pixels
    /// even at the best compression (a run of 62 pixels a byte) plus the end marker: a
    /// small file declaring a large image fails here, before its pixels are allocated.
    static func checkLength(_ byteCount: Int, header: QOIHeader) throws(ImageError) {
        let available = byteCount - QOIHeader.size - QOIHeader.endMarker.count
        let pixels = header.pixelCount
        let needed = pixels / QOIPixel.maxRun + (pixels % QOIPixel.maxRun == 0 ? 0 : 1)
        if available < needed {
            throw .badImageData(
                "the QOI data is truncated: a \(header.width)×\(header.height) image needs at least \(needed) bytes of op codes and the 8-byte end marker after the 14-byte header, but the data is \(byteCount) bytes"
            )
        }
    }

    /// The pixels of the QOI data in `bytes`, whose header is `header`: row by row,
    /// `header.channels` bytes a pixel. Call ``checkLength(_:header:)`` first: it bounds
    /// the buffer this allocates by the data's length.
    static func pixels(of bytes: UnsafeRawBufferPointer, header: QOIHeader) throws(ImageError) -> [UInt8] {
        let count = header.pixelCount * header.channels
        var failure: ImageError?
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            if let error = decode(bytes, header: header, into: output) {
                failure = error
                initialized = 0
            } else {
                initialized = count
            }
        }
        if let failure { throw failure }
        return pixels
    }

    /// Decodes into `output` (exactly `pixelCount × channels` bytes); returns the reason
    /// the data is bad, or `nil` when every pixel and the end marker were read.
    private static func decode(
        _ input: UnsafeRawBufferPointer, header: QOIHeader, into output: UnsafeMutableBufferPointer<UInt8>
    ) -> ImageError? {
        let end = input.count
        let channels = header.channels
        var position = QOIHeader.size
        var px = QOIPixel.start
        var run = 0
        var written = 0
        let truncated = { (pixel: Int) -> ImageError in
            .badImageData(
                "the QOI data is truncated: it ends inside the op code of pixel \(pixel) of \(header.pixelCount) (\(header.width)×\(header.height))"
            )
        }
        return withUnsafeTemporaryAllocation(of: QOIPixel.self, capacity: 64) { index -> ImageError? in
            index.initialize(repeating: .zero)
            defer { index.deinitialize() }
            while written < output.count {
                if run > 0 {
                    run -= 1
                } else {
                    guard position < end else { return truncated(written / channels) }
                    let b1 = input[position]
                    position += 1
                    if b1 == QOIPixel.opRGB {
                        guard position + 3 <= end else { return truncated(written / channels) }
                        px.r = input[position]
                        px.g = input[position + 1]
                        px.b = input[position + 2]
                        position += 3
                    } else if b1 == QOIPixel.opRGBA {
                        guard position + 4 <= end else { return truncated(written / channels) }
                        px.r = input[position]
                        px.g = input[position + 1]
                        px.b = input[position + 2]
                        px.a = input[position + 3]
                        position += 4
                    } else {
                        switch b1 & QOIPixel.tagMask {
                        case QOIPixel.opIndex:
                            px = index[Int(b1)]
                        case QOIPixel.opDiff:
                            px.r = px.r &+ ((b1 >> 4) & 0x03) &- 2
                            px.g = px.g &+ ((b1 >> 2) & 0x03) &- 2
                            px.b = px.b &+ (b1 & 0x03) &- 2
                        case QOIPixel.opLuma:
                            guard position < end else { return truncated(written / channels) }
                            let b2 = input[position]
                            position += 1
                            let greenDifference = (b1 & 0x3F) &- 32
                            px.r = px.r &+ greenDifference &- 8 &+ ((b2 >> 4) & 0x0F)
                            px.g = px.g &+ greenDifference
                            px.b = px.b &+ greenDifference &- 8 &+ (b2 & 0x0F)
                        default:
                            run = Int(b1 & 0x3F)
                        }
                    }
                    index[px.indexPosition] = px
                }
                output[written] = px.r
                output[written + 1] = px.g
                output[written + 2] = px.b
                if channels == 4 { output[written + 3] = px.a }
                written += channels
            }
            let marker = QOIHeader.endMarker
            guard position + marker.count <= end else {
                return .badImageData(
                    "the QOI data is truncated: \(end - position) bytes follow the last pixel, where the 8-byte end marker (7 × 0x00, 0x01) belongs"
                )
            }
            guard input[position..<position + marker.count].elementsEqual(marker) else {
                let found = input[position..<position + marker.count].map { String($0, radix: 16) }.joined(separator: " ")
                return .badImageData(
                    "the QOI data is damaged: the 8 bytes after the last pixel are \(found), not the end marker 0 0 0 0 0 0 0 1"
                )
            }
            return nil
        }
    }
}
