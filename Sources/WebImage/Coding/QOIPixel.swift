/// One RGBA pixel of the QOI encoder's and decoder's state, and the QOI op codes that
/// change it.
struct QOIPixel: Equatable {
    var r: UInt8
    var g: UInt8
    var b: UInt8
    var a: UInt8

    /// The pixel both sides start from: opaque black.
    static let start = QOIPixel(r: 0, g: 0, b: 0, a: 255)
    /// What every slot of the 64-entry index holds at the start: transparent black.
    static let zero = QOIPixel(r: 0, g: 0, b: 0, a: 0)

    /// The pixel's slot in the index: `(r × 3 + g × 5 + b × 7 + a × 11) mod 64`.
    var indexPosition: Int {
        (Int(r) &* 3 &+ Int(g) &* 5 &+ Int(b) &* 7 &+ Int(a) &* 11) & 63
    }

    // The op codes. `rgb` and `rgba` are full bytes; the others are 2-bit tags in the
    // top bits of their first byte, tested after the full-byte codes.

    /// `0xFE r g b`: a new colour, alpha unchanged.
    static let opRGB: UInt8 = 0xFE
    /// `0xFF r g b a`: a new colour and alpha.
    static let opRGBA: UInt8 = 0xFF
    /// `00iiiiii`: the colour in index slot `i`.
    static let opIndex: UInt8 = 0x00
    /// `01rrggbb`: each colour channel differs from the previous pixel's by -2…1 (stored +2).
    static let opDiff: UInt8 = 0x40
    /// `10gggggg rrrrbbbb`: green differs by -32…31 (stored +32), red and blue differ
    /// from green's difference by -8…7 (stored +8).
    static let opLuma: UInt8 = 0x80
    /// `11rrrrrr`: the previous pixel repeated 1…62 times (stored -1).
    static let opRun: UInt8 = 0xC0
    /// Mask of the 2-bit tag.
    static let tagMask: UInt8 = 0xC0
    /// The longest run one op holds (63 and 64 would collide with `opRGB` and `opRGBA`).
    static let maxRun = 62
}
