/// The synthetic images of the ThumbHash reference vectors: the integer formulas of
/// make-thumbhash-vectors.mjs, written again here.
enum ThumbHashVectorPixels {
    /// The RGBA pixels of the image `name`, `width` × `height`; `nil` for a name the
    /// formulas do not know.
    static func rgba(_ name: String, width w: Int, height h: Int) -> [UInt8]? {
        let formula: (Int, Int) -> [Int]
        switch name {
        case "gradient": formula = { x, y in [x * 255 / (w - 1), y * 255 / (h - 1), (x + y) * 7 % 256, 255] }
        case "alphaRamp": formula = { x, y in [200, y * 6 % 256, 60, x * 255 / (w - 1)] }
        case "landscapeStripes": formula = { x, y in [x * 13 % 256, y * 40 % 256, ((x >> 3) + (y >> 3)) % 2 == 1 ? 230 : 20, 255] }
        case "portrait": formula = { x, y in [y * 255 / (h - 1), 255 - y * 255 / (h - 1), x * 12, 255] }
        case "solid": formula = { _, _ in [12, 120, 200, 255] }
        case "disc":
            formula = { x, y in
                let dx = x - 45, dy = y - 25
                return [x * 3 % 256, 180, y * 5 % 256, dx * dx + dy * dy < 400 ? 255 : 0]
            }
        case "transparent": formula = { _, _ in [255, 0, 0, 0] }
        case "onePixel": formula = { _, _ in [40, 80, 160, 255] }
        case "square100": formula = { x, y in [x * y % 256, (x + 2 * y) % 256, (3 * x + y) % 256, 255] }
        default: return nil
        }
        var pixels: [UInt8] = []
        pixels.reserveCapacity(w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                pixels += formula(x, y).map { UInt8($0) }
            }
        }
        return pixels
    }
}
