import Foundation

extension ThumbHash {
    /// The largest width and height ``init(rgba:width:height:)`` accepts: a bigger image
    /// costs more to hash and gives the same placeholder.
    public static let maxEncodedSide = 100

    /// Hashes RGBA pixels: `width` × `height` pixels, row by row, 4 bytes each (red,
    /// green, blue and alpha, not premultiplied). Both sides must be 1…``maxEncodedSide``;
    /// ``init(image:)`` makes such a thumbnail from an image of any size.
    ///
    /// Throws ``ImageError/badImageData(_:)`` when the buffer does not hold `width` ×
    /// `height` × 4 bytes or a side is out of range.
    public init(rgba: [UInt8], width: Int, height: Int) throws(ImageError) {
        guard (1...Self.maxEncodedSide).contains(width), (1...Self.maxEncodedSide).contains(height) else {
            throw .badImageData(
                "a ThumbHash is made from at most \(Self.maxEncodedSide)×\(Self.maxEncodedSide) pixels, not \(width)×\(height); resize the image first or use ThumbHash(image:)"
            )
        }
        guard rgba.count == width * height * 4 else {
            throw .badImageData("RGBA buffer of \(rgba.count) bytes does not match \(width)×\(height)×4")
        }
        try self.init(bytes: ThumbHashEncoder(rgba: rgba, width: width, height: height).encode())
    }
}

/// The reference encoder's steps, in its order of floating-point operations, so that the
/// bytes come out identical.
struct ThumbHashEncoder {
    let rgba: [UInt8]
    let width: Int
    let height: Int

    /// One channel's DCT: the constant term, the varying terms normalised to 0…1, and the
    /// scale that normalised them.
    struct Channel {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0
    }

    func encode() -> [UInt8] {
        let count = width * height
        // The average colour, weighted by alpha.
        var averageR = 0.0, averageG = 0.0, averageB = 0.0, averageA = 0.0
        for i in 0..<count {
            let alpha = Double(rgba[4 * i + 3]) / 255
            averageR += alpha / 255 * Double(rgba[4 * i])
            averageG += alpha / 255 * Double(rgba[4 * i + 1])
            averageB += alpha / 255 * Double(rgba[4 * i + 2])
            averageA += alpha
        }
        if averageA > 0 {
            averageR /= averageA
            averageG /= averageA
            averageB /= averageA
        }

        let hasAlpha = averageA < Double(count)
        let luminanceLimit = hasAlpha ? 5 : 7 // fewer luminance terms leave room for alpha
        let longSide = Double(max(width, height))
        let lx = max(1, ThumbHashLayout.round(Double(luminanceLimit * width) / longSide))
        let ly = max(1, ThumbHashLayout.round(Double(luminanceLimit * height) / longSide))

        // RGBA to luminance, yellow–blue, red–green and alpha, composited over the average.
        var l = [Double](repeating: 0, count: count)
        var p = l, q = l, a = l
        for i in 0..<count {
            let alpha = Double(rgba[4 * i + 3]) / 255
            let r = averageR * (1 - alpha) + alpha / 255 * Double(rgba[4 * i])
            let g = averageG * (1 - alpha) + alpha / 255 * Double(rgba[4 * i + 1])
            let b = averageB * (1 - alpha) + alpha / 255 * Double(rgba[4 * i + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }

        let luminance = encodeChannel(l, nx: max(3, lx), ny: max(3, ly))
        let yellowBlue = encodeChannel(p, nx: 3, ny: 3)
        let redGreen = encodeChannel(q, nx: 3, ny: 3)
        let alpha = hasAlpha ? encodeChannel(a, nx: 5, ny: 5) : nil

        let round = ThumbHashLayout.round
        let isLandscape = width > height
        let header24 = round(63 * luminance.dc) | round(31.5 + 31.5 * yellowBlue.dc) << 6
            | round(31.5 + 31.5 * redGreen.dc) << 12 | round(31 * luminance.scale) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx) | round(63 * yellowBlue.scale) << 3 | round(63 * redGreen.scale) << 9
            | (isLandscape ? 1 << 15 : 0)
        var hash = [header24, header24 >> 8, header24 >> 16, header16, header16 >> 8].map { UInt8(truncatingIfNeeded: $0) }
        if let alpha {
            hash.append(UInt8(truncatingIfNeeded: round(15 * alpha.dc) | round(15 * alpha.scale) << 4))
        }

        // The varying terms, 4 bits each, low nibble first.
        let terms = [luminance, yellowBlue, redGreen] + (alpha.map { [$0] } ?? [])
        let start = hash.count
        let termCount = terms.reduce(0) { $0 + $1.ac.count }
        hash += [UInt8](repeating: 0, count: (termCount + 1) / 2)
        var index = 0
        for channel in terms {
            for term in channel.ac {
                hash[start + (index >> 1)] |= UInt8(truncatingIfNeeded: round(15 * term) << ((index & 1) << 2))
                index += 1
            }
        }
        return hash
    }

    /// The DCT of one channel over the triangle of coefficients `cx·ny < nx·(ny − cy)`.
    private func encodeChannel(_ channel: [Double], nx: Int, ny: Int) -> Channel {
        var result = Channel()
        var fx = [Double](repeating: 0, count: width)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                for x in 0..<width {
                    fx[x] = FDLibmCosine.cos(Double.pi / Double(width) * Double(cx) * (Double(x) + 0.5))
                }
                var f = 0.0
                for y in 0..<height {
                    let fy = FDLibmCosine.cos(Double.pi / Double(height) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<width {
                        f += channel[x + y * width] * fx[x] * fy
                    }
                }
                f /= Double(width * height)
                if cx > 0 || cy > 0 {
                    result.ac.append(f)
                    result.scale = max(result.scale, abs(f))
                } else {
                    result.dc = f
                }
                cx += 1
            }
        }
        if result.scale > 0 {
            result.ac = result.ac.map { 0.5 + 0.5 / result.scale * $0 }
        }
        return result
    }
}
