import Foundation
import Testing
@testable import WebImage

/// `FDLibmCosine` against JavaScript's `Math.cos` as the reference ThumbHash runs it (node,
/// V8): the same bits at every argument ThumbHash computes
/// (`ThumbHashReferenceVectors.cosineDigest`, made by make-thumbhash-vectors.mjs).
@Suite struct FDLibmCosineTests {
    /// FNV-1a (64 bits) of the little-endian bits of `cosine` at the arguments the digest covers.
    private func digest(_ cosine: (Double) -> Double) -> UInt64 {
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: Double) {
            var bits = value.bitPattern
            for _ in 0..<8 {
                digest = (digest ^ (bits & 0xFF)) &* 0x100_0000_01b3
                bits >>= 8
            }
        }
        for w in 1...100 {
            for c in 0..<8 {
                for x in 0..<w {
                    mix(cosine(Double.pi / Double(w) * Double(c) * (Double(x) + 0.5)))
                    mix(cosine(Double.pi / Double(w) * (Double(x) + 0.5) * Double(c)))
                }
            }
        }
        return digest
    }

    @Test func matchesJavaScriptAtEveryThumbHashArgument() {
        #expect(digest(FDLibmCosine.cos) == ThumbHashReferenceVectors.cosineDigest)
    }

    /// Why ThumbHash does not use the system cosine: glibc's differs from JavaScript's in the
    /// last bit at some of these arguments (and then the "portrait" vector's bytes differ).
    @Test func theSystemCosineDiffersFromJavaScript() {
        #expect(digest(Foundation.cos) != ThumbHashReferenceVectors.cosineDigest)
    }

    @Test(arguments: [0.0, -0.0, 1e-10, 0.3, 0.7853981633974483, 1.5707963267948966, -1.5707963267948966, 2.356194490192345, 3.141592653589793, 10, -10, 21.99114857512855, 1e5])
    func agreesWithTheSystemCosineWithinAnULP(x: Double) {
        let ours = FDLibmCosine.cos(x), system = Foundation.cos(x)
        #expect(abs(ours - system) <= max(ours.ulp, system.ulp), "cos(\(x)): \(ours) vs \(system)")
    }

    @Test func notANumberForInfinityAndNaN() {
        #expect(FDLibmCosine.cos(.infinity).isNaN)
        #expect(FDLibmCosine.cos(.nan).isNaN)
    }
}
