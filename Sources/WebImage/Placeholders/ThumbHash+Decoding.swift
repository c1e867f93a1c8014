import Foundation

extension ThumbHash {
    /// The placeholder the hash describes, as RGBA pixels (not premultiplied): 32 pixels
    /// along the longer side, the other side by ``approximateAspectRatio``. The same pixels
    /// the reference implementation's `thumbHashToRGBA` gives.
    public func pixels() -> ThumbHashPixels {
        ThumbHashDecoder(hash: self).decode()
    }

    /// The placeholder the hash describes, as a 4-channel RGBA ``Image`` (``pixels()``),
    /// for an ``ImageTarget`` to show while the real image loads; scale it up for display.
    public func image() throws(ImageError) -> Image {
        let decoded = pixels()
        return try Image(pixels: decoded.rgba, width: decoded.width, height: decoded.height, channels: 4)
    }

    /// The average colour of the hashed image, each channel 0…1 (RGB not premultiplied).
    public var averageColor: ThumbHashColor {
        let l = header.luminanceDC, p = header.pDC, q = header.qDC
        let b = l - 2.0 / 3.0 * p
        let r = (3 * l - b + q) / 2
        let g = r - q
        return ThumbHashColor(
            red: max(0, min(1, r)), green: max(0, min(1, g)), blue: max(0, min(1, b)), alpha: header.alphaDC
        )
    }
}

/// The reference decoder's steps, in its order of floating-point operations, so that the
/// pixels come out identical.
struct ThumbHashDecoder {
    let hash: ThumbHash

    /// Reads the varying terms in the order they were written, 4 bits each.
    private struct TermReader {
        let bytes: [UInt8]
        var index: Int

        mutating func channel(nx: Int, ny: Int, scale: Double) -> [Double] {
            var terms: [Double] = []
            for cy in 0..<ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) {
                    let nibble = (bytes[index >> 1] >> ((index & 1) << 2)) & 15
                    terms.append((Double(nibble) / 7.5 - 1) * scale)
                    index += 1
                    cx += 1
                }
            }
            return terms
        }
    }

    func decode() -> ThumbHashPixels {
        let header = hash.header
        let lx = header.lx, ly = header.ly, hasAlpha = header.hasAlpha
        // Saturation is boosted by 1.25 to make up for quantisation, as the reference does.
        var reader = TermReader(bytes: hash.bytes, index: 2 * header.acStart)
        let luminanceTerms = reader.channel(nx: lx, ny: ly, scale: header.luminanceScale)
        let pTerms = reader.channel(nx: 3, ny: 3, scale: header.pScale * 1.25)
        let qTerms = reader.channel(nx: 3, ny: 3, scale: header.qScale * 1.25)
        let alphaTerms = hasAlpha ? reader.channel(nx: 5, ny: 5, scale: header.alphaScale) : []

        let ratio = header.approximateAspectRatio
        let width = ThumbHashLayout.round(ratio > 1 ? 32 : 32 * ratio)
        let height = ThumbHashLayout.round(ratio > 1 ? 32 / ratio : 32)
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        var fx = [Double](repeating: 0, count: max(lx, hasAlpha ? 5 : 3))
        var fy = [Double](repeating: 0, count: max(ly, hasAlpha ? 5 : 3))
        var i = 0
        for y in 0..<height {
            for x in 0..<width {
                var l = header.luminanceDC, p = header.pDC, q = header.qDC, a = header.alphaDC
                for cx in 0..<fx.count {
                    fx[cx] = FDLibmCosine.cos(Double.pi / Double(width) * (Double(x) + 0.5) * Double(cx))
                }
                for cy in 0..<fy.count {
                    fy[cy] = FDLibmCosine.cos(Double.pi / Double(height) * (Double(y) + 0.5) * Double(cy))
                }

                var j = 0
                for cy in 0..<ly {
                    let fy2 = fy[cy] * 2
                    var cx = cy > 0 ? 0 : 1
                    while cx * ly < lx * (ly - cy) {
                        l += luminanceTerms[j] * fx[cx] * fy2
                        cx += 1
                        j += 1
                    }
                }

                j = 0
                for cy in 0..<3 {
                    let fy2 = fy[cy] * 2
                    for cx in (cy > 0 ? 0 : 1)..<(3 - cy) {
                        let f = fx[cx] * fy2
                        p += pTerms[j] * f
                        q += qTerms[j] * f
                        j += 1
                    }
                }

                if hasAlpha {
                    j = 0
                    for cy in 0..<5 {
                        let fy2 = fy[cy] * 2
                        for cx in (cy > 0 ? 0 : 1)..<(5 - cy) {
                            a += alphaTerms[j] * fx[cx] * fy2
                            j += 1
                        }
                    }
                }

                let b = l - 2.0 / 3.0 * p
                let r = (3 * l - b + q) / 2
                let g = r - q
                // The reference stores into a Uint8Array, which truncates.
                rgba[i] = UInt8(max(0, 255 * min(1, r)))
                rgba[i + 1] = UInt8(max(0, 255 * min(1, g)))
                rgba[i + 2] = UInt8(max(0, 255 * min(1, b)))
                rgba[i + 3] = UInt8(max(0, 255 * min(1, a)))
                i += 4
            }
        }
        return ThumbHashPixels(width: width, height: height, rgba: rgba)
    }
}
