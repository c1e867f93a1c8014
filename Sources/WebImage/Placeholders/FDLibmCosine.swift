import Foundation

/// The cosine of fdlibm 5.3 (Sun Microsystems' freely distributable libm), which JavaScript
/// engines' `Math.cos` follow: V8, and so node and Chrome, computes it this way.
///
/// glibc's `cos` is correctly rounded and differs from fdlibm's in the last bit for a few
/// per cent of arguments. ThumbHash quantises coefficients that are often exactly 0 in
/// theory (an image that varies along one axis only), where one bit of noise decides a
/// rounding; hashing with this cosine gives the reference implementation's bytes.
enum FDLibmCosine {
    static func cos(_ x: Double) -> Double {
        let ix = highWord(x) & 0x7FFF_FFFF
        if ix <= 0x3FE9_21FB { return kernelCos(x, 0) }  // |x| ≲ π/4
        if ix >= 0x7FF0_0000 { return x - x }  // NaN or infinity
        // Beyond 2¹⁹·π/2 fdlibm needs its multi-precision reduction; ThumbHash's arguments
        // stay below 8π, so the system cosine stands in there.
        guard let (n, y0, y1) = reduce(x) else { return Foundation.cos(x) }
        switch n & 3 {
        case 0: return kernelCos(y0, y1)
        case 1: return -kernelSin(y0, y1)
        case 2: return -kernelCos(y0, y1)
        default: return kernelSin(y0, y1)
        }
    }

    private static func highWord(_ x: Double) -> Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: x.bitPattern >> 32)) }
    private static func double(_ bits: UInt64) -> Double { Double(bitPattern: bits) }

    /// cos(x + y) for |x| ≲ π/4, `y` the tail of `x`.
    private static func kernelCos(_ x: Double, _ y: Double) -> Double {
        let c1 = double(0x3FA5_5555_5555_554C), c2 = double(0xBF56_C16C_16C1_5177)
        let c3 = double(0x3EFA_01A0_19CB_1590), c4 = double(0xBE92_7E4F_809C_52AD)
        let c5 = double(0x3E21_EE9E_BDB4_B1C4), c6 = double(0xBDA8_FAE9_BE88_38D4)
        let ix = highWord(x) & 0x7FFF_FFFF
        if ix < 0x3E40_0000, Int(x) == 0 { return 1 }  // |x| < 2⁻²⁷
        let z = x * x
        let r = z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6)))))
        if ix < 0x3FD3_3333 { return 1 - (0.5 * z - (z * r - x * y)) }  // |x| < 0.3
        let qx = ix > 0x3FE9_0000 ? 0.28125 : double(UInt64(UInt32(ix - 0x0020_0000)) << 32)  // x/4
        let hz = 0.5 * z - qx
        let a = 1 - qx
        return a - (hz - (z * r - x * y))
    }

    /// sin(x + y) for |x| ≲ π/4, `y` the tail of `x` (fdlibm's `__kernel_sin` with `iy` = 1).
    private static func kernelSin(_ x: Double, _ y: Double) -> Double {
        let s1 = double(0xBFC5_5555_5555_5549), s2 = double(0x3F81_1111_1110_F8A6)
        let s3 = double(0xBF2A_01A0_19C1_61D5), s4 = double(0x3EC7_1DE3_57B1_FE7D)
        let s5 = double(0xBE5A_E5E6_8A2B_9CEB), s6 = double(0x3DE5_D93A_5ACF_D57C)
        let ix = highWord(x) & 0x7FFF_FFFF
        if ix < 0x3E40_0000, Int(x) == 0 { return x }  // |x| < 2⁻²⁷
        let z = x * x
        let v = z * x
        let r = s2 + z * (s3 + z * (s4 + z * (s5 + z * s6)))
        return x - ((z * (0.5 * y - v * r) - y) - v * s1)
    }

    /// High words of n·π/2 for n = 1…32: where the quick reduction may have cancelled.
    private static let multiplesOfHalfPiHighWords: [Int32] = [
        0x3FF9_21FB, 0x4009_21FB, 0x4012_D97C, 0x4019_21FB, 0x401F_6A7A, 0x4022_D97C,
        0x4025_FDBB, 0x4029_21FB, 0x402C_463A, 0x402F_6A7A, 0x4031_475C, 0x4032_D97C,
        0x4034_6B9C, 0x4035_FDBB, 0x4037_8FDB, 0x4039_21FB, 0x403A_B41B, 0x403C_463A,
        0x403D_D85A, 0x403F_6A7A, 0x4040_7E4C, 0x4041_475C, 0x4042_106C, 0x4042_D97C,
        0x4043_A28C, 0x4044_6B9C, 0x4045_34AC, 0x4045_FDBB, 0x4046_C6CB, 0x4047_8FDB,
        0x4048_58EB, 0x4049_21FB,
    ]

    /// x − n·π/2 as a head and a tail, with n (fdlibm's `__ieee754_rem_pio2` for
    /// |x| ≤ 2¹⁹·π/2); `nil` beyond.
    private static func reduce(_ x: Double) -> (n: Int32, y0: Double, y1: Double)? {
        let invpio2 = double(0x3FE4_5F30_6DC9_C883)
        let pio2_1 = double(0x3FF9_21FB_5440_0000), pio2_1t = double(0x3DD0_B461_1A62_6331)
        let pio2_2 = double(0x3DD0_B461_1A60_0000), pio2_2t = double(0x3BA3_198A_2E03_7073)
        let pio2_3 = double(0x3BA3_198A_2E00_0000), pio2_3t = double(0x397B_839A_2520_49C1)
        let hx = highWord(x)
        let ix = hx & 0x7FFF_FFFF
        if ix < 0x4002_D97C {  // |x| < 3π/4: n = ±1
            if hx > 0 {
                var z = x - pio2_1
                if ix != 0x3FF9_21FB {
                    let y0 = z - pio2_1t
                    return (1, y0, (z - y0) - pio2_1t)
                }
                z -= pio2_2  // near π/2: more bits of π
                let y0 = z - pio2_2t
                return (1, y0, (z - y0) - pio2_2t)
            }
            var z = x + pio2_1
            if ix != 0x3FF9_21FB {
                let y0 = z + pio2_1t
                return (-1, y0, (z - y0) + pio2_1t)
            }
            z += pio2_2
            let y0 = z + pio2_2t
            return (-1, y0, (z - y0) + pio2_2t)
        }
        guard ix <= 0x4139_21FB else { return nil }
        let t = abs(x)
        let n = Int32(t * invpio2 + 0.5)
        let fn = Double(n)
        var r = t - fn * pio2_1
        var w = fn * pio2_1t
        var y0 = r - w
        if !(n < 32 && ix != multiplesOfHalfPiHighWords[Int(n) - 1]) {
            // Possible cancellation: reduce again with more bits of π where it happened.
            let j = ix >> 20
            if j - ((highWord(y0) >> 20) & 0x7FF) > 16 {
                var t = r
                w = fn * pio2_2
                r = t - w
                w = fn * pio2_2t - ((t - r) - w)
                y0 = r - w
                if j - ((highWord(y0) >> 20) & 0x7FF) > 49 {
                    t = r
                    w = fn * pio2_3
                    r = t - w
                    w = fn * pio2_3t - ((t - r) - w)
                    y0 = r - w
                }
            }
        }
        let y1 = (r - y0) - w
        return hx < 0 ? (-n, -y0, -y1) : (n, y0, y1)
    }
}
