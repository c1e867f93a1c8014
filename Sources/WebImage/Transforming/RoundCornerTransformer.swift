import CVips

/// Rounds the image's corners: pixels outside a rounded rectangle of corner radius
/// `radius` become transparent (the image gains an alpha channel), with anti-aliased
/// edges; an optional border `borderWidth` pixels wide, of `borderColor`, follows the
/// rounded outline inside the image. A radius over half the shorter side is capped there
/// (a circle or a pill). Radius 0 gives square corners (with a border, a plain frame).
///
/// Key: `round-<radius>`, plus `-<borderWidth>-<rrggbbaa>` with a border:
/// `round-20`, `round-20-2-000000ff`.
public struct RoundCornerTransformer: ImageTransformer {
    /// The corner radius in pixels.
    public let radius: Int
    /// The border's width in pixels; 0 draws none.
    public let borderWidth: Int
    /// The border's colour.
    public let borderColor: ImageColor

    /// Creates rounded corners of `radius` pixels, with an optional border.
    public init(radius: Int, borderWidth: Int = 0, borderColor: ImageColor = .black) {
        self.radius = radius
        self.borderWidth = borderWidth
        self.borderColor = borderColor
    }

    /// `round-<radius>`, plus `-<borderWidth>-<rrggbbaa>` with a border.
    public var key: String {
        let base = "round-\(TransformKey.number(radius))"
        return borderWidth == 0 ? base : "\(base)-\(TransformKey.number(borderWidth))-\(borderColor.hex)"
    }

    /// Makes every frame's pixels outside the rounded rectangle transparent and draws the
    /// border, if any; a negative radius or border width fails with
    /// ``ImageError/invalidTransform(_:)``.
    public func transform(_ image: Image) throws(ImageError) -> Image {
        guard radius >= 0, borderWidth >= 0 else {
            throw .invalidTransform("round corners radius \(radius), border \(borderWidth): both must be 0 or more pixels")
        }
        let size = image.pixelSize
        // The masks are the same for every frame: made once, in Swift, as 8-bit coverage.
        let outline = RoundedRectMask(size: size, radius: radius, inset: 0)
        let outer = try Self.maskImage(outline.coverage(), size: size)
        let border: VipsImageHandle? = borderWidth == 0 ? nil : try Self.maskImage(
            RoundedRectMask(size: size, radius: radius, inset: borderWidth).coverage().map { 255 - $0 }, size: size
        )
        let borderColor = self.borderColor
        return try image.transformingFrames { frame throws(ImageError) in
            var framed = try VipsTransform.prepare(frame, for: border == nil ? .black : borderColor, addAlpha: true)
            if let border {
                let paint = try VipsTransform.constant(like: framed, values: VipsTransform.values(of: borderColor, for: framed))
                let unframed = framed
                framed = try Vips.run("drawing the border", failure: .invalidTransform) { wi_blend(border.pointer, paint.pointer, unframed.pointer, $0) }
            }
            let (colour, alpha) = try VipsTransform.splitAlpha(framed)
            guard let alpha else { return framed }
            let clear = try VipsTransform.constant(like: alpha, values: [0])
            let rounded = try Vips.run("rounding the corners", failure: .invalidTransform) { wi_blend(outer.pointer, alpha.pointer, clear.pointer, $0) }
            return try VipsTransform.join(colour, rounded)
        }
    }

    private static func maskImage(_ coverage: [UInt8], size: PixelSize) throws(ImageError) -> VipsImageHandle {
        guard let pointer = coverage.withUnsafeBytes({
            wi_image_from_pixels($0.baseAddress, $0.count, Int32(size.width), Int32(size.height), 1)
        }) else {
            throw .invalidTransform("cannot make the corner mask: \(Vips.takeError())")
        }
        return VipsImageHandle(pointer)
    }
}

/// The anti-aliased coverage of a rounded rectangle: the image's rectangle shrunk by
/// `inset` on every side, with corner radius `radius − inset` (capped at half its
/// shorter side).
struct RoundedRectMask {
    let size: PixelSize
    let radius: Int
    let inset: Int

    /// One byte a pixel, row by row: 255 inside, 0 outside, partial along the outline.
    func coverage() -> [UInt8] {
        let (width, height) = (size.width, size.height)
        let left = Double(inset), top = Double(inset)
        let right = Double(width - inset), bottom = Double(height - inset)
        guard right > left, bottom > top else { return [UInt8](repeating: 0, count: width * height) }
        let (halfWidth, halfHeight) = ((right - left) / 2, (bottom - top) / 2)
        let (centreX, centreY) = (left + halfWidth, top + halfHeight)
        let cornerRadius = min(Double(max(0, radius - inset)), halfWidth, halfHeight)
        var mask = [UInt8](repeating: 255, count: width * height)
        // Pixels further than this from every edge are fully inside; only the band along
        // the edges (and the corners in it) is computed.
        let band = min(max(width, height), inset + max(radius, 0) + 2)
        func cover(_ x: Int, _ y: Int) -> UInt8 {
            // Signed distance from the pixel's centre to the rounded rectangle's outline.
            let qx = abs(Double(x) + 0.5 - centreX) - (halfWidth - cornerRadius)
            let qy = abs(Double(y) + 0.5 - centreY) - (halfHeight - cornerRadius)
            let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
            let distance = outside + min(max(qx, qy), 0) - cornerRadius
            let amount = min(1, max(0, 0.5 - distance))
            return UInt8((amount * 255).rounded())
        }
        mask.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                let edgeRow = y < band || y >= height - band
                if edgeRow {
                    for x in 0..<width { pixels[y * width + x] = cover(x, y) }
                } else {
                    for x in 0..<min(band, width) { pixels[y * width + x] = cover(x, y) }
                    for x in max(min(band, width), width - band)..<width { pixels[y * width + x] = cover(x, y) }
                }
            }
        }
        return mask
    }
}
