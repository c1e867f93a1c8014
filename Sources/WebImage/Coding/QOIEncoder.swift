import Foundation

/// Writes pixels as a QOI stream with the specification's encoder, choosing the same op
/// for every pixel as the reference `qoi.h` does, so the output is byte-identical to it.
enum QOIEncoder {
    /// QOI data for `pixels`: `width × height` pixels, row by row, `sourceChannels` bytes
    /// a pixel (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA). Grey is written as RGB, grey +
    /// alpha as RGBA; the header says 3 channels without alpha and 4 with it, and colour
    /// space 0 (sRGB with linear alpha).
    static func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, sourceChannels: Int) -> Data {
        precondition((1...4).contains(sourceChannels) && pixels.count >= width * height * sourceChannels)
        let channels = sourceChannels == 2 || sourceChannels == 4 ? 4 : 3
        let header = QOIHeader(width: width, height: height, channels: channels, colorspace: QOIHeader.colorspaceSRGB)
        let pixelCount = width * height
        let capacity = pixelCount * (channels + 1) + QOIHeader.size + QOIHeader.endMarker.count
        var data = Data(count: capacity)
        let length = data.withUnsafeMutableBytes { raw -> Int in
            let out = raw.bindMemory(to: UInt8.self)
            var p = 0
            for byte in header.bytes {
                out[p] = byte
                p += 1
            }
            withUnsafeTemporaryAllocation(of: QOIPixel.self, capacity: 64) { index in
                index.initialize(repeating: .zero)
                defer { index.deinitialize() }
                var previous = QOIPixel.start
                var px = previous
                var run = 0
                let last = pixelCount - 1
                for i in 0..<pixelCount {
                    let source = i * sourceChannels
                    switch sourceChannels {
                    case 1:
                        let grey = pixels[source]
                        px.r = grey
                        px.g = grey
                        px.b = grey
                    case 2:
                        let grey = pixels[source]
                        px.r = grey
                        px.g = grey
                        px.b = grey
                        px.a = pixels[source + 1]
                    case 3:
                        px.r = pixels[source]
                        px.g = pixels[source + 1]
                        px.b = pixels[source + 2]
                    default:
                        px.r = pixels[source]
                        px.g = pixels[source + 1]
                        px.b = pixels[source + 2]
                        px.a = pixels[source + 3]
                    }

                    if px == previous {
                        run += 1
                        if run == QOIPixel.maxRun || i == last {
                            out[p] = QOIPixel.opRun | UInt8(run - 1)
                            p += 1
                            run = 0
                        }
                        continue
                    }
                    if run > 0 {
                        out[p] = QOIPixel.opRun | UInt8(run - 1)
                        p += 1
                        run = 0
                    }
                    let position = px.indexPosition
                    if index[position] == px {
                        out[p] = QOIPixel.opIndex | UInt8(position)
                        p += 1
                    } else {
                        index[position] = px
                        if px.a == previous.a {
                            // Differences wrap at 8 bits, as the reference's `signed char`s do.
                            let vr = Int8(bitPattern: px.r &- previous.r)
                            let vg = Int8(bitPattern: px.g &- previous.g)
                            let vb = Int8(bitPattern: px.b &- previous.b)
                            let vgR = Int8(truncatingIfNeeded: Int(vr) - Int(vg))
                            let vgB = Int8(truncatingIfNeeded: Int(vb) - Int(vg))
                            if (-2...1).contains(vr), (-2...1).contains(vg), (-2...1).contains(vb) {
                                out[p] = QOIPixel.opDiff | UInt8(vr + 2) << 4 | UInt8(vg + 2) << 2 | UInt8(vb + 2)
                                p += 1
                            } else if (-8...7).contains(vgR), (-32...31).contains(vg), (-8...7).contains(vgB) {
                                out[p] = QOIPixel.opLuma | UInt8(vg + 32)
                                out[p + 1] = UInt8(vgR + 8) << 4 | UInt8(vgB + 8)
                                p += 2
                            } else {
                                out[p] = QOIPixel.opRGB
                                out[p + 1] = px.r
                                out[p + 2] = px.g
                                out[p + 3] = px.b
                                p += 4
                            }
                        } else {
                            out[p] = QOIPixel.opRGBA
                            out[p + 1] = px.r
                            out[p + 2] = px.g
                            out[p + 3] = px.b
                            out[p + 4] = px.a
                            p += 5
                        }
                    }
                    previous = px
                }
            }
            for byte in QOIHeader.endMarker {
                out[p] = byte
                p += 1
            }
            return p
        }
        data.count = length
        return data
    }
}
