/// The constants at the start of a ThumbHash, and the layout of the bytes after them.
///
/// Bytes 0–2 (little-endian, 24 bits): luminance DC (6 bits), P and Q DC (6 bits each),
/// luminance AC scale (5 bits), has-alpha (1 bit). Bytes 3–4 (16 bits): the luminance
/// coefficient count along the shorter side (3 bits), P and Q AC scales (6 bits each),
/// is-landscape (1 bit). With alpha, byte 5 holds the alpha DC and AC scale (4 bits each).
/// Then the AC coefficients, 4 bits each, low nibble first: luminance, P, Q, alpha.
struct ThumbHashHeader: Sendable, Hashable {
    let luminanceDC: Double
    let pDC: Double
    let qDC: Double
    let luminanceScale: Double
    let hasAlpha: Bool
    let pScale: Double
    let qScale: Double
    let isLandscape: Bool
    /// Luminance coefficients across and down, as recorded (1–7).
    let storedLX: Int
    let storedLY: Int
    let alphaDC: Double
    let alphaScale: Double

    /// Luminance coefficients across and down the decoder uses: at least 3 each.
    var lx: Int { max(3, storedLX) }
    var ly: Int { max(3, storedLY) }

    /// Where the AC coefficients start.
    var acStart: Int { hasAlpha ? 6 : 5 }

    /// Width ÷ height as recorded.
    var approximateAspectRatio: Double { Double(storedLX) / Double(storedLY) }

    /// The number of bytes a hash with this header has.
    var byteCount: Int {
        let count = ThumbHashLayout.acCount(nx: lx, ny: ly) + 2 * ThumbHashLayout.acCount(nx: 3, ny: 3)
            + (hasAlpha ? ThumbHashLayout.acCount(nx: 5, ny: 5) : 0)
        return acStart + (count + 1) / 2
    }

    init(_ bytes: [UInt8]) throws(ImageError) {
        guard bytes.count >= 5 else {
            throw .badImageData("a ThumbHash has at least 5 bytes, this one has \(bytes.count); pass the whole hash")
        }
        let header24 = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16
        let header16 = Int(bytes[3]) | Int(bytes[4]) << 8
        luminanceDC = Double(header24 & 63) / 63
        pDC = Double((header24 >> 6) & 63) / 31.5 - 1
        qDC = Double((header24 >> 12) & 63) / 31.5 - 1
        luminanceScale = Double((header24 >> 18) & 31) / 31
        hasAlpha = header24 >> 23 != 0
        pScale = Double((header16 >> 3) & 63) / 63
        qScale = Double((header16 >> 9) & 63) / 63
        isLandscape = header16 >> 15 != 0
        let stored = header16 & 7
        let longSide = hasAlpha ? 5 : 7
        storedLX = isLandscape ? longSide : stored
        storedLY = isLandscape ? stored : longSide
        guard stored > 0 else {
            throw .badImageData("the ThumbHash header records 0 luminance coefficients along the image's shorter side (at least 1 is written); the bytes are not a ThumbHash")
        }
        if hasAlpha, bytes.count < 6 {
            throw .badImageData("a ThumbHash with alpha has at least 6 bytes, this one has \(bytes.count); pass the whole hash")
        }
        alphaDC = hasAlpha ? Double(bytes[5] & 15) / 15 : 1
        alphaScale = hasAlpha ? Double(bytes[5] >> 4) / 15 : 0
        let expected = byteCount
        guard bytes.count == expected else {
            throw .badImageData(
                "the ThumbHash header describes \(expected) bytes, the hash has \(bytes.count); pass the hash exactly as it was encoded"
            )
        }
    }
}

/// The coefficient layout encoder and decoder share.
enum ThumbHashLayout {
    /// The AC coefficients of an `nx` × `ny` channel: the triangle `cx·ny < nx·(ny − cy)`,
    /// without the DC term at (0, 0).
    static func acCount(nx: Int, ny: Int) -> Int {
        var count = 0
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                count += 1
                cx += 1
            }
        }
        return count - 1
    }

    /// JavaScript's `Math.round`: halves go up (towards +∞), as the reference rounds.
    static func round(_ value: Double) -> Int {
        let down = value.rounded(.down)
        return Int(value - down >= 0.5 ? down + 1 : down)
    }
}
